// The workspace aggregate: who owns flipbooks, on which plan, and which API keys may act for it.
import type { Event } from '@event-driven-io/emmett';

export const PLANS = ['free', 'team'] as const;
export type Plan = (typeof PLANS)[number];

export type WorkspaceCreated = Event<
  'WorkspaceCreated',
  { workspaceId: string; name: string; plan: Plan; occurredAt: string }
>;
export type ApiKeyIssued = Event<
  'ApiKeyIssued',
  {
    workspaceId: string;
    keyId: string;
    /** hex SHA-256 of the full key; the key itself is never stored */
    keyHash: string;
    label: string | null;
    expiresAt: string | null;
    occurredAt: string;
  }
>;
export type ApiKeyRevoked = Event<
  'ApiKeyRevoked',
  { workspaceId: string; keyId: string; occurredAt: string }
>;

export type WorkspacePlanChanged = Event<
  'WorkspacePlanChanged',
  { workspaceId: string; plan: Plan; previousPlan: Plan; occurredAt: string }
>;

export type WorkspaceEvent = WorkspaceCreated | ApiKeyIssued | ApiKeyRevoked | WorkspacePlanChanged;

export type Workspace =
  | { status: 'none' }
  | {
      status: 'created';
      workspaceId: string;
      name: string;
      plan: Plan;
      keys: Record<string, { revoked: boolean }>;
    };

export const initialState = (): Workspace => ({ status: 'none' });

export const evolve = (state: Workspace, event: WorkspaceEvent): Workspace => {
  switch (event.type) {
    case 'WorkspaceCreated':
      return { status: 'created', ...pick(event.data), keys: {} };
    case 'ApiKeyIssued':
      if (state.status !== 'created') return state;
      return { ...state, keys: { ...state.keys, [event.data.keyId]: { revoked: false } } };
    case 'WorkspacePlanChanged':
      if (state.status !== 'created') return state;
      return { ...state, plan: event.data.plan };
    case 'ApiKeyRevoked':
      if (state.status !== 'created') return state;
      return { ...state, keys: { ...state.keys, [event.data.keyId]: { revoked: true } } };
  }
};

const pick = ({ workspaceId, name, plan }: WorkspaceCreated['data']) => ({
  workspaceId,
  name,
  plan,
});

export const workspaceStream = (workspaceId: string) => `workspace-${workspaceId}`;
