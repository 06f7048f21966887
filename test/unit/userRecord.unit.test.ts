// The account record, command by command: when a command, then its event.
// Nothing on an account is refused by its past (the use cases check sessions, credentials and
// passkeys against the read tables); what is decided is the record's shape: who, which
// workspace, when, and nothing secret.
import { describe, expect, it } from 'vitest';
import { recordOf, type UserCommand } from '../../src/domain/user/record.ts';
import { evolve, initialState, type UserEvent } from '../../src/domain/user/user.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

// The spec's given/when/then, with no past: the record reads none.
const given = deciderSpec({
  decide: (command: UserCommand) => recordOf(command),
  evolve,
  initialState,
});

const USER_ID = '5d3c2b1a-0f9e-4d8c-b7a6-958473625140';
const WORKSPACE_ID = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const SESSION_ID = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const CREDENTIAL_ID = '0f1e2d3c-4b5a-4968-8776-655443322110';
const PASSKEY_ID = 'AbCdEf0123456789_-xyz';
const NOW_ISO = '2025-01-15T10:30:00.000Z';
const NOW = new Date(NOW_ISO);
const account = { userId: USER_ID, workspaceId: WORKSPACE_ID };

const signedIn: UserEvent = {
  type: 'UserSignedIn',
  data: { ...account, sessionId: SESSION_ID, method: 'password', occurredAt: NOW_ISO },
};

describe('the account record', () => {
  it('SetPassword records the password by its credential, never its hash', () => {
    given([])
      .when({ type: 'SetPassword', data: { ...account, credentialId: CREDENTIAL_ID, now: NOW } })
      .then([
        {
          type: 'UserPasswordSet',
          data: { ...account, credentialId: CREDENTIAL_ID, occurredAt: NOW_ISO },
        },
      ]);
  });

  it('RecordSignIn records the session and how the person signed in', () => {
    given([signedIn])
      .when({
        type: 'RecordSignIn',
        data: { ...account, sessionId: SESSION_ID, method: 'passkey', now: NOW },
      })
      .then([
        {
          type: 'UserSignedIn',
          data: { ...account, sessionId: SESSION_ID, method: 'passkey', occurredAt: NOW_ISO },
        },
      ]);
  });

  it('RecordFailedSignIn names the passkey that failed, and no credential for a password', () => {
    given([])
      .when({
        type: 'RecordFailedSignIn',
        data: { ...account, reason: 'passkey', credentialId: PASSKEY_ID, now: NOW },
      })
      .then([
        {
          type: 'UserSignInFailed',
          data: { ...account, reason: 'passkey', credentialId: PASSKEY_ID, occurredAt: NOW_ISO },
        },
      ]);
    // (a credential id sneaked into a password failure does not reach the record)
    const command = {
      type: 'RecordFailedSignIn',
      data: { ...account, reason: 'password', credentialId: PASSKEY_ID, now: NOW },
    } as unknown as UserCommand;
    given([signedIn])
      .when(command)
      .then([
        {
          type: 'UserSignInFailed',
          data: { ...account, reason: 'password', occurredAt: NOW_ISO },
        },
      ]);
  });

  it('RecordSignOut and RevokeSession name the session that ended', () => {
    given([signedIn])
      .when({ type: 'RecordSignOut', data: { ...account, sessionId: SESSION_ID, now: NOW } })
      .then([
        {
          type: 'UserSignedOut',
          data: { ...account, sessionId: SESSION_ID, occurredAt: NOW_ISO },
        },
      ]);
    given([signedIn])
      .when({ type: 'RevokeSession', data: { ...account, sessionId: SESSION_ID, now: NOW } })
      .then([
        {
          type: 'UserSessionRevoked',
          data: { ...account, sessionId: SESSION_ID, occurredAt: NOW_ISO },
        },
      ]);
  });

  it('AddPasskey keeps its public key and folds its name; RemovePasskey names it', () => {
    const passkey = {
      credentialId: PASSKEY_ID,
      publicKey: 'pQECAyYgASFYIA',
      transports: ['internal', 'hybrid'],
      deviceType: 'multiDevice' as const,
      backedUp: true,
      aaguid: '00000000-0000-0000-0000-000000000000',
    };
    given([signedIn])
      .when({
        type: 'AddPasskey',
        data: { ...account, ...passkey, name: ' Work\u202Elaptop\n ', now: NOW },
      })
      .then([
        {
          type: 'PasskeyAdded',
          data: { ...account, ...passkey, name: 'Work laptop', occurredAt: NOW_ISO },
        },
      ]);
    given([signedIn])
      .when({ type: 'RemovePasskey', data: { ...account, credentialId: PASSKEY_ID, now: NOW } })
      .then([
        {
          type: 'PasskeyRemoved',
          data: { ...account, credentialId: PASSKEY_ID, occurredAt: NOW_ISO },
        },
      ]);
  });

  it('every command makes exactly one event of the account, whatever its past', () => {
    const past = [signedIn, signedIn];
    const state = past.reduce(evolve, initialState());
    expect(state.events).toBe(2); // the stream's length, for the append: all the state there is
    const made = recordOf({
      type: 'RecordSignOut',
      data: { ...account, sessionId: SESSION_ID, now: NOW },
    });
    expect(made).toHaveLength(1);
    expect(made[0]?.data.userId).toBe(USER_ID);
  });
});
