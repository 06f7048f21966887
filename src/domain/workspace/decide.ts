// Commands on a workspace and the pure decisions about them. Time and ids come in with the command.
import { Conflict, InvalidInput, NotFound, RuleBroken } from '../errors.ts';
import { iso } from '../iso.ts';
import { type Branding, colourOf, isLogo, type Logo, NO_BRANDING } from './branding.ts';
import { decideMembers, type MemberCommand } from './members.ts';
import { requireWorkspace } from './requireWorkspace.ts';
import { decideWebhooks, type WebhookCommand } from './webhooks.ts';
import {
  ANALYTICS_DAYS,
  ANALYTICS_DAYS_RANGE,
  type Plan,
  type Workspace,
  type WorkspaceEvent,
} from './workspace.ts';
import { workspaceEventData } from './workspaceEventData.ts';

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
/**
 * Replaces a key by a new one with the same name and the same lifetime (counted from now); the
 * old key keeps working for `graceMs` (0: refused at once).
 */
export type RollApiKey = {
  type: 'RollApiKey';
  data: { keyId: string; newKeyId: string; newKeyHash: string; graceMs: number; now: Date };
};
export type RevokeApiKey = { type: 'RevokeApiKey'; data: { keyId: string; now: Date } };

export type ChangePlan = { type: 'ChangePlan'; data: { plan: Plan; now: Date } };
export type SetAnalytics = {
  type: 'SetAnalytics';
  data: { enabled: boolean; retentionDays: number; now: Date };
};

/** The reader's branding: colours as given, and a new logo (null: none; absent: keep it). */
export type SetBranding = {
  type: 'SetBranding';
  data: { accent: string | null; background: string | null; logo?: Logo | null; now: Date };
};

/** Records an erasure already made (the reader's rows and key are operational state). */
export type RecordReaderErased = {
  type: 'RecordReaderErased';
  data: { readers: number; now: Date };
};

export type WorkspaceCommand =
  | RecordReaderErased
  | CreateWorkspace
  | IssueApiKey
  | RollApiKey
  | RevokeApiKey
  | ChangePlan
  | SetAnalytics
  | SetBranding
  | MemberCommand
  | WebhookCommand;

type Created = Extract<Workspace, { status: 'created' }>;

/** New keys (issued or rolled) need the Team plan; revoking and using existing ones do not. */
const requireTeamPlan = (state: Created) => {
  if (state.plan !== 'team') {
    throw new RuleBroken(
      `API keys are available on the Team plan only; workspace "${state.name}" is on the ${state.plan} plan`,
    );
  }
};

export const createWorkspace = ({ data }: CreateWorkspace, state: Workspace): WorkspaceEvent[] => {
  if (state.status === 'created') {
    if (state.name === data.name && state.plan === data.plan) return [];
    throw new Conflict(`Workspace ${state.workspaceId} already exists`);
  }
  const { workspaceId, name, plan, now } = data;
  return [{ type: 'WorkspaceCreated', data: { workspaceId, name, plan, occurredAt: iso(now) } }];
};

export const issueApiKey = ({ data }: IssueApiKey, workspace: Workspace): WorkspaceEvent[] => {
  const state = requireWorkspace(workspace);
  requireTeamPlan(state);
  if (state.keys[data.keyId]) return [];
  if (data.expiresAt && data.expiresAt.getTime() <= data.now.getTime()) {
    throw new RuleBroken('The key would already be expired: its expiry must be in the future');
  }
  return [
    {
      type: 'ApiKeyIssued',
      data: workspaceEventData(state, data.now, {
        keyId: data.keyId,
        keyHash: data.keyHash,
        label: data.label,
        expiresAt: data.expiresAt ? iso(data.expiresAt) : null,
      }),
    },
  ];
};

export const rollApiKey = ({ data }: RollApiKey, workspace: Workspace): WorkspaceEvent[] => {
  const state = requireWorkspace(workspace);
  const { keyId, newKeyId, now } = data;
  // The same roll again (a retried request): the new key exists and names this one.
  if (state.keys[newKeyId]?.rolledFrom === keyId) return [];
  requireTeamPlan(state);
  const key = state.keys[keyId];
  if (!key) throw new NotFound(`API key ${keyId} not found`);
  if (state.keys[newKeyId]) throw new Conflict(`API key ${newKeyId} already exists`);
  if (key.revoked) throw new RuleBroken(`API key ${keyId} is revoked: it cannot be rolled`);
  if (key.rolledTo) {
    throw new RuleBroken(`API key ${keyId} was already rolled (to ${key.rolledTo}): roll that one`);
  }
  if (key.expiresAt && Date.parse(key.expiresAt) <= now.getTime()) {
    throw new RuleBroken(`API key ${keyId} has expired: create a new key instead`);
  }
  if (!Number.isFinite(data.graceMs) || data.graceMs < 0) {
    throw new InvalidInput('The grace period must be zero or more');
  }
  // The same lifetime as the key it replaces: a 90-day key rolls into a fresh 90-day key.
  const expiresAt = key.expiresAt
    ? new Date(now.getTime() + Date.parse(key.expiresAt) - Date.parse(key.issuedAt))
    : null;
  return [
    {
      type: 'ApiKeyIssued',
      data: {
        workspaceId: state.workspaceId,
        keyId: newKeyId,
        keyHash: data.newKeyHash,
        label: key.label,
        expiresAt: expiresAt ? iso(expiresAt) : null,
        occurredAt: iso(now),
        rolledFrom: keyId,
      },
    },
    {
      type: 'ApiKeyRolled',
      data: workspaceEventData(state, now, {
        keyId,
        newKeyId,
        validUntil: iso(new Date(now.getTime() + data.graceMs)),
      }),
    },
  ];
};

export const revokeApiKey = ({ data }: RevokeApiKey, workspace: Workspace): WorkspaceEvent[] => {
  const state = requireWorkspace(workspace);
  const key = state.keys[data.keyId];
  if (!key) throw new NotFound(`API key ${data.keyId} not found`);
  if (key.revoked) return [];
  return [
    {
      type: 'ApiKeyRevoked',
      data: workspaceEventData(state, data.now, { keyId: data.keyId }),
    },
  ];
};

/** Keys already issued keep working after a move to a plan without keys; new ones are refused. */
export const changePlan = ({ data }: ChangePlan, workspace: Workspace): WorkspaceEvent[] => {
  const state = requireWorkspace(workspace);
  if (state.plan === data.plan) return [];
  return [
    {
      type: 'WorkspacePlanChanged',
      data: workspaceEventData(state, data.now, { plan: data.plan, previousPlan: state.plan }),
    },
  ];
};

/** Reader analytics on or off, and days kept; the same settings again change nothing. */
export const setAnalytics = ({ data }: SetAnalytics, workspace: Workspace): WorkspaceEvent[] => {
  const state = requireWorkspace(workspace);
  const [least, most] = ANALYTICS_DAYS_RANGE;
  if (
    !Number.isInteger(data.retentionDays) ||
    data.retentionDays < least ||
    data.retentionDays > most
  ) {
    throw new InvalidInput(`Days kept must be a whole number from ${least} to ${most}`);
  }
  const now = state.analytics ?? { enabled: true, retentionDays: ANALYTICS_DAYS };
  if (now.enabled === data.enabled && now.retentionDays === data.retentionDays) return [];
  return [
    {
      type: 'WorkspaceAnalyticsChanged',
      data: workspaceEventData(state, data.now, {
        enabled: data.enabled,
        retentionDays: data.retentionDays,
      }),
    },
  ];
};

/** Colours checked and kept lower-case; the same branding again changes nothing. */
export const setBranding = ({ data }: SetBranding, state: Workspace): WorkspaceEvent[] => {
  const workspace = requireWorkspace(state);
  const colour = (given: string | null, what: string) => {
    if (given === null || given.trim() === '') return null;
    const value = colourOf(given);
    if (!value) throw new InvalidInput(`The ${what} must be a colour such as #1a6bd8`);
    return value;
  };
  const accent = colour(data.accent, 'accent');
  const background = colour(data.background, 'background');
  if (data.logo && !isLogo(data.logo)) throw new InvalidInput('The logo is not one made here');
  const now: Branding = workspace.branding ?? NO_BRANDING;
  const logoChanged = data.logo !== undefined && data.logo?.data !== now.logo?.data;
  if (accent === now.accent && background === now.background && !logoChanged) return [];
  return [
    {
      type: 'WorkspaceBrandingChanged',
      data: workspaceEventData(workspace, data.now, {
        accent,
        background,
        ...(logoChanged ? { logo: data.logo ?? null } : {}),
      }),
    },
  ];
};

export const decide = (command: WorkspaceCommand, state: Workspace): WorkspaceEvent[] => {
  switch (command.type) {
    case 'CreateWorkspace':
      return createWorkspace(command, state);
    case 'IssueApiKey':
      return issueApiKey(command, state);
    case 'RollApiKey':
      return rollApiKey(command, state);
    case 'RevokeApiKey':
      return revokeApiKey(command, state);
    case 'ChangePlan':
      return changePlan(command, state);
    case 'SetAnalytics':
      return setAnalytics(command, state);
    case 'SetBranding':
      return setBranding(command, state);
    case 'RecordReaderErased': {
      const { readers, now } = command.data;
      const data = workspaceEventData(requireWorkspace(state), now, { readers });
      return [{ type: 'ReaderErased', data }];
    }
    case 'AddWebhook':
    case 'RemoveWebhook':
    case 'DisableWebhook':
    case 'EnableWebhook':
      return decideWebhooks(command, state);
    default:
      return decideMembers(command, state);
  }
};
