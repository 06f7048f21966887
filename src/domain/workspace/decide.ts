// Commands on a workspace and the pure decisions about them. Time and ids come in with the command.
import { Conflict, NotFound, RuleBroken } from '../errors.ts';
import { iso } from '../iso.ts';
import { decideMembers, type MemberCommand } from './members.ts';
import type { Plan, Workspace, WorkspaceEvent } from './workspace.ts';

export type CreateWorkspace = {
  type: 'CreateWorkspace';
  data: { workspaceId: string; name: string; plan: Plan; now: Date };
};
export type IssueApiKey = {
  type: 'IssueApiKey';
  data: {
    keyId: string;
    keyHash: string;
    label: string | null;
    expiresAt: Date | null;
    now: Date;
  };
};
export type RevokeApiKey = { type: 'RevokeApiKey'; data: { keyId: string; now: Date } };

export type ChangePlan = { type: 'ChangePlan'; data: { plan: Plan; now: Date } };

export type WorkspaceCommand =
  | CreateWorkspace
  | IssueApiKey
  | RevokeApiKey
  | ChangePlan
  | MemberCommand;

export const createWorkspace = ({ data }: CreateWorkspace, state: Workspace): WorkspaceEvent[] => {
  if (state.status === 'created') {
    if (state.name === data.name && state.plan === data.plan) return [];
    throw new Conflict(`Workspace ${state.workspaceId} already exists`);
  }
  const { workspaceId, name, plan, now } = data;
  return [{ type: 'WorkspaceCreated', data: { workspaceId, name, plan, occurredAt: iso(now) } }];
};

export const issueApiKey = ({ data }: IssueApiKey, state: Workspace): WorkspaceEvent[] => {
  if (state.status !== 'created') throw new NotFound('Workspace not found');
  if (state.plan !== 'team') {
    throw new RuleBroken(
      `API keys are available on the Team plan only; workspace "${state.name}" is on the ${state.plan} plan`,
    );
  }
  if (state.keys[data.keyId]) return [];
  if (data.expiresAt && data.expiresAt.getTime() <= data.now.getTime()) {
    throw new RuleBroken('The key would already be expired: its expiry must be in the future');
  }
  return [
    {
      type: 'ApiKeyIssued',
      data: {
        workspaceId: state.workspaceId,
        keyId: data.keyId,
        keyHash: data.keyHash,
        label: data.label,
        expiresAt: data.expiresAt ? iso(data.expiresAt) : null,
        occurredAt: iso(data.now),
      },
    },
  ];
};

export const revokeApiKey = ({ data }: RevokeApiKey, state: Workspace): WorkspaceEvent[] => {
  if (state.status !== 'created') throw new NotFound('Workspace not found');
  const key = state.keys[data.keyId];
  if (!key) throw new NotFound(`API key ${data.keyId} not found`);
  if (key.revoked) return [];
  return [
    {
      type: 'ApiKeyRevoked',
      data: { workspaceId: state.workspaceId, keyId: data.keyId, occurredAt: iso(data.now) },
    },
  ];
};

/** Keys already issued keep working after a move to a plan without keys; new ones are refused. */
export const changePlan = ({ data }: ChangePlan, state: Workspace): WorkspaceEvent[] => {
  if (state.status !== 'created') throw new NotFound('Workspace not found');
  if (state.plan === data.plan) return [];
  return [
    {
      type: 'WorkspacePlanChanged',
      data: {
        workspaceId: state.workspaceId,
        plan: data.plan,
        previousPlan: state.plan,
        occurredAt: iso(data.now),
      },
    },
  ];
};

export const decide = (command: WorkspaceCommand, state: Workspace): WorkspaceEvent[] => {
  switch (command.type) {
    case 'CreateWorkspace':
      return createWorkspace(command, state);
    case 'IssueApiKey':
      return issueApiKey(command, state);
    case 'RevokeApiKey':
      return revokeApiKey(command, state);
    case 'ChangePlan':
      return changePlan(command, state);
    default:
      return decideMembers(command, state);
  }
};
