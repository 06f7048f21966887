// The workspace decider, rule by rule: given past events, when a command, then the new events.
import { describe, it } from 'vitest';
import { Conflict, InvalidInput, NotFound, RuleBroken } from '../../src/domain/errors.ts';
import { decide, type WorkspaceCommand } from '../../src/domain/workspace/decide.ts';
import {
  type ApiKeyIssued,
  type ApiKeyRevoked,
  type ApiKeyRolled,
  evolve,
  initialState,
  type Plan,
  type WorkspaceCreated,
  type WorkspacePlanChanged,
} from '../../src/domain/workspace/workspace.ts';
import { deciderSpec } from '../support/deciderSpec.ts';
import { WORKSPACE_ID } from '../support/domainFixtures.ts';

const given = deciderSpec({ decide, evolve, initialState });

const KEY_ID = 'b7e1a2c3-d4e5-4f60-a1b2-c3d4e5f60718';
const OTHER_KEY_ID = 'c8f2b3d4-e5f6-4071-b2c3-d4e5f6071829';
const KEY_HASH = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

const EARLIER_ISO = '2025-01-10T08:00:00.000Z';
const NOW_ISO = '2025-01-15T10:30:00.000Z';
const NOW = new Date(NOW_ISO);
const EXPIRY_ISO = '2025-07-15T10:30:00.000Z';

// Events: the past ones stamped EARLIER_ISO unless told, the expected new ones told NOW_ISO.
const created = (
  plan: Plan = 'team',
  name = 'Acme Publishing',
  at = EARLIER_ISO,
): WorkspaceCreated => ({
  type: 'WorkspaceCreated',
  data: { workspaceId: WORKSPACE_ID, name, plan, occurredAt: at },
});
const issued = (
  options: {
    keyId?: string;
    keyHash?: string;
    label?: string | null;
    expiresAt?: string | null;
    at?: string;
    rolledFrom?: string;
  } = {},
): ApiKeyIssued => ({
  type: 'ApiKeyIssued',
  data: {
    workspaceId: WORKSPACE_ID,
    keyId: options.keyId ?? KEY_ID,
    keyHash: options.keyHash ?? KEY_HASH,
    label: options.label === undefined ? 'CI uploads' : options.label,
    expiresAt: options.expiresAt ?? null,
    occurredAt: options.at ?? EARLIER_ISO,
    // absent, not undefined, on a key issued on its own: the match is exact
    ...(options.rolledFrom === undefined ? {} : { rolledFrom: options.rolledFrom }),
  },
});
const revoked = (keyId = KEY_ID, at = EARLIER_ISO): ApiKeyRevoked => ({
  type: 'ApiKeyRevoked',
  data: { workspaceId: WORKSPACE_ID, keyId, occurredAt: at },
});
/** The Team workspace moved to the free plan, at NOW_ISO. */
const movedToFree: WorkspacePlanChanged = {
  type: 'WorkspacePlanChanged',
  data: { workspaceId: WORKSPACE_ID, plan: 'free', previousPlan: 'team', occurredAt: NOW_ISO },
};

const create = (plan: Plan = 'team', name = 'Acme Publishing'): WorkspaceCommand => ({
  type: 'CreateWorkspace',
  data: { workspaceId: WORKSPACE_ID, name, plan, now: NOW },
});
const issue = (
  options: { keyId?: string; label?: string | null; expiresAt?: Date | null } = {},
): WorkspaceCommand => ({
  type: 'IssueApiKey',
  data: {
    keyId: options.keyId ?? KEY_ID,
    keyHash: KEY_HASH,
    label: options.label === undefined ? 'CI uploads' : options.label,
    expiresAt: options.expiresAt === undefined ? new Date(EXPIRY_ISO) : options.expiresAt,
    now: NOW,
  },
});
const revoke = (keyId = KEY_ID): WorkspaceCommand => ({
  type: 'RevokeApiKey',
  data: { keyId, now: NOW },
});

describe('workspace decider', () => {
  describe('CreateWorkspace', () => {
    it('creates a workspace with its name and plan, stamped with the current time', () => {
      given([])
        .when(create('team'))
        .then([created('team', 'Acme Publishing', NOW_ISO)]);
    });

    it('does nothing when the same workspace is created again with the same name and plan', () => {
      given([created('free')])
        .when(create('free'))
        .thenNothingHappened();
    });

    it('refuses to create the workspace again under a different name', () => {
      given([created('team', 'Acme Publishing')])
        .when(create('team', 'Acme Books'))
        .thenThrows((e) => e instanceof Conflict && e.message.includes(WORKSPACE_ID));
    });

    it('refuses to create the workspace again on a different plan', () => {
      given([created('free')])
        .when(create('team'))
        .thenThrows((e) => e instanceof Conflict && /already exists/.test(e.message));
    });
  });

  describe('IssueApiKey', () => {
    it('issues a key on a Team workspace, recording its hash, label and expiry as ISO strings', () => {
      given([created('team')])
        .when(issue())
        .then([issued({ expiresAt: EXPIRY_ISO, at: NOW_ISO })]);
    });

    it('issues a key without label or expiry, recording both as null', () => {
      given([created('team')])
        .when(issue({ label: null, expiresAt: null }))
        .then([issued({ label: null, expiresAt: null, at: NOW_ISO })]);
    });

    it('refuses to issue a key on a Free workspace, pointing at the Team plan', () => {
      given([created('free')])
        .when(issue())
        .thenThrows((e) => e instanceof RuleBroken && /Team plan/.test(e.message));
    });

    it('refuses to issue a key on a workspace that does not exist', () => {
      given([])
        .when(issue())
        .thenThrows((e) => e instanceof NotFound);
    });

    it('refuses a key whose expiry is already in the past', () => {
      given([created('team')])
        .when(issue({ expiresAt: new Date('2025-01-15T10:29:59.999Z') }))
        .thenThrows((e) => e instanceof RuleBroken && /expir/.test(e.message));
    });

    it('refuses a key whose expiry is exactly now', () => {
      given([created('team')])
        .when(issue({ expiresAt: new Date(NOW_ISO) }))
        .thenThrows((e) => e instanceof RuleBroken && /expir/.test(e.message));
    });

    it.each([
      ['the same key id is issued twice', [created('team'), issued()]],
      [
        'a revoked key id is issued again, so a revoked key stays revoked',
        [created('team'), issued(), revoked()],
      ],
    ])('does nothing when %s', (_, history) => {
      given(history).when(issue()).thenNothingHappened();
    });

    it('issues a second key with a different id next to the first', () => {
      given([created('team'), issued()])
        .when(issue({ keyId: OTHER_KEY_ID }))
        .then([issued({ keyId: OTHER_KEY_ID, expiresAt: EXPIRY_ISO, at: NOW_ISO })]);
    });
  });

  describe('RevokeApiKey', () => {
    it('revokes an issued key', () => {
      given([created('team'), issued()])
        .when(revoke())
        .then([revoked(KEY_ID, NOW_ISO)]);
    });

    it('does nothing when a key is revoked twice', () => {
      given([created('team'), issued(), revoked()])
        .when(revoke())
        .thenNothingHappened();
    });

    it('refuses to revoke a key the workspace never issued', () => {
      given([created('team'), issued()])
        .when(revoke(OTHER_KEY_ID))
        .thenThrows((e) => e instanceof NotFound && e.message.includes(OTHER_KEY_ID));
    });

    it('refuses to revoke a key on a workspace that does not exist', () => {
      given([])
        .when(revoke())
        .thenThrows((e) => e instanceof NotFound && /Workspace/.test(e.message));
    });
  });

  describe('RollApiKey', () => {
    const NEW_KEY_ID = 'd9a3c4e5-f607-4182-93d4-e5f607182930';
    const NEW_HASH = '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae';
    const HOUR = 3_600_000;
    const roll = (graceMs = HOUR, keyId = KEY_ID, newKeyId = NEW_KEY_ID): WorkspaceCommand => ({
      type: 'RollApiKey',
      data: { keyId, newKeyId, newKeyHash: NEW_HASH, graceMs, now: NOW },
    });
    const rolled = (keyId = KEY_ID, newKeyId = NEW_KEY_ID, validUntil = NOW_ISO): ApiKeyRolled => ({
      type: 'ApiKeyRolled',
      data: { workspaceId: WORKSPACE_ID, keyId, newKeyId, validUntil, occurredAt: NOW_ISO },
    });
    const newKey = (expiresAt: string | null = null): ApiKeyIssued =>
      issued({ keyId: NEW_KEY_ID, keyHash: NEW_HASH, expiresAt, at: NOW_ISO, rolledFrom: KEY_ID });

    it('issues a new key with the same name and ends the old one after the grace, together', () => {
      given([created('team'), issued()])
        .when(roll(HOUR))
        .then([newKey(null), rolled(KEY_ID, NEW_KEY_ID, '2025-01-15T11:30:00.000Z')]);
    });

    it('with no grace, ends the old key at the moment of the roll', () => {
      given([created('team'), issued()])
        .when(roll(0))
        .then([newKey(null), rolled()]);
    });

    it('gives the new key the old one’s lifetime, counted from the roll', () => {
      const expiring = issued({ expiresAt: '2025-04-10T08:00:00.000Z' }); // 90 days
      given([created('team'), expiring])
        .when(roll(0))
        .then([newKey('2025-04-15T10:30:00.000Z'), rolled()]);
    });

    it('refuses outside the Team plan, with the message issuing gives', () => {
      const TEAM_ONLY =
        'API keys are available on the Team plan only; workspace "Acme Publishing" is on the free plan';
      given([created('team'), issued(), movedToFree])
        .when(issue({ keyId: OTHER_KEY_ID }))
        .thenThrows((e) => e instanceof RuleBroken && e.message === TEAM_ONLY);
      given([created('team'), issued(), movedToFree])
        .when(roll())
        .thenThrows((e) => e instanceof RuleBroken && e.message === TEAM_ONLY);
    });

    it('does nothing when the same roll comes again (a retried request)', () => {
      given([created('team'), issued(), newKey(), rolled()])
        .when(roll())
        .thenNothingHappened();
    });

    it('refuses a key the workspace never issued', () => {
      given([created('team'), issued()])
        .when(roll(HOUR, OTHER_KEY_ID))
        .thenThrows((e) => e instanceof NotFound && e.message.includes(OTHER_KEY_ID));
    });

    it('refuses a revoked key', () => {
      given([created('team'), issued(), revoked()])
        .when(roll())
        .thenThrows((e) => e instanceof RuleBroken && /revoked/.test(e.message));
    });

    it('refuses a key rolled already: the new one is the one to roll', () => {
      given([created('team'), issued(), newKey(), rolled()])
        .when(roll(HOUR, KEY_ID, OTHER_KEY_ID))
        .thenThrows((e) => e instanceof RuleBroken && e.message.includes(NEW_KEY_ID));
    });

    it('refuses an expired key', () => {
      given([created('team'), issued({ expiresAt: '2025-01-12T00:00:00.000Z' })])
        .when(roll())
        .thenThrows((e) => e instanceof RuleBroken && /expired/.test(e.message));
    });

    it('refuses a negative grace', () => {
      given([created('team'), issued()])
        .when(roll(-1))
        .thenThrows((e) => e instanceof InvalidInput);
    });

    it('lets a key in its grace be revoked, and the new key too', () => {
      given([created('team'), issued(), newKey(), rolled()])
        .when(revoke(KEY_ID))
        .then([revoked(KEY_ID, NOW_ISO)]);
      given([created('team'), issued(), newKey(), rolled()])
        .when(revoke(NEW_KEY_ID))
        .then([revoked(NEW_KEY_ID, NOW_ISO)]);
    });

    it('the new key can be rolled in turn', () => {
      given([created('team'), issued(), newKey(), rolled()])
        .when(roll(0, NEW_KEY_ID, OTHER_KEY_ID))
        .then([
          issued({ keyId: OTHER_KEY_ID, keyHash: NEW_HASH, at: NOW_ISO, rolledFrom: NEW_KEY_ID }),
          rolled(NEW_KEY_ID, OTHER_KEY_ID),
        ]);
    });
  });

  describe('RevokeApiKey on a free workspace', () => {
    it('still revokes: only new keys need the Team plan', () => {
      given([created('team'), issued(), movedToFree])
        .when(revoke())
        .then([revoked(KEY_ID, NOW_ISO)]);
    });
  });

  describe('ChangePlan', () => {
    const changePlan = (plan: Plan): WorkspaceCommand => ({
      type: 'ChangePlan',
      data: { plan, now: NOW },
    });

    it('moves a workspace to another plan, naming the previous one', () => {
      given([created('team')])
        .when(changePlan('free'))
        .then([movedToFree]);
    });

    it('does nothing when the workspace is already on that plan', () => {
      given([created('team')])
        .when(changePlan('team'))
        .thenNothingHappened();
    });

    it('refuses new keys after a move to the free plan', () => {
      given([created('team'), movedToFree])
        .when(issue())
        .thenThrows((e) => e instanceof RuleBroken && /Team plan/.test(e.message));
    });

    it('refuses a workspace that does not exist', () => {
      given([])
        .when(changePlan('free'))
        .thenThrows((e) => e instanceof NotFound);
    });
  });
});
