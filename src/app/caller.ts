// Who is asking: the workspace a use case is scoped to, its plan, and the metadata the events of
// the request carry. The HTTP side (src/http/auth.ts) makes one from an API key.
import type { Plan } from '../domain/workspace/workspace.ts';
import type { EventMetadata } from './eventContext.ts';

export type Caller = {
  workspaceId: string;
  plan: Plan;
  /** the API key of the request; none for a person signed in to the dashboard */
  keyId?: string;
  metadata: EventMetadata;
};
