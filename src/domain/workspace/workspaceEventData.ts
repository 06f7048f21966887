// What every event on a workspace's stream carries besides its own fields: the workspace, first,
// and when, last (the order its three deciders have always written them in: ./decide.ts,
// ./members.ts, ./webhooks.ts).
import { iso } from '../iso.ts';

export const workspaceEventData = <Fields extends object>(
  workspace: { workspaceId: string },
  now: Date,
  fields: Fields,
) => ({ workspaceId: workspace.workspaceId, ...fields, occurredAt: iso(now) });
