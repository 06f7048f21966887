// Every command on a workspace's stream needs the workspace to exist: one check for its three
// deciders (./decide.ts, ./members.ts, ./webhooks.ts), each of which reads the state its own way.
import { NotFound } from '../errors.ts';

export const requireWorkspace = <State extends { status: string }>(
  state: State,
): Extract<State, { status: 'created' }> => {
  if (state.status !== 'created') throw new NotFound('Workspace not found');
  return state as Extract<State, { status: 'created' }>;
};
