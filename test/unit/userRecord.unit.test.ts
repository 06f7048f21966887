// The account record, command by command: when a command, then its event.
// Nothing on an account is refused by its past (the use cases check sessions, credentials and
// passkeys against the read tables); what is decided is the record's shape: who, which
// workspace, when, and nothing secret.
import { describe, expect, it } from 'vitest';
import { recordOf, type UserCommand } from '../../src/domain/user/record.ts';
import { evolve, initialState, type UserEvent } from '../../src/domain/user/user.ts';
import { deciderSpec } from '../support/deciderSpec.ts';
import { NOW, NOW_ISO, WORKSPACE_ID } from '../support/domainFixtures.ts';

// The spec's given/when/then, with no past: the record reads none.
const given = deciderSpec({
  decide: (command: UserCommand) => recordOf(command),
  evolve,
  initialState,
});

const USER_ID = '5d3c2b1a-0f9e-4d8c-b7a6-958473625140';
const SESSION_ID = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const CREDENTIAL_ID = '0f1e2d3c-4b5a-4968-8776-655443322110';
const PASSKEY_ID = 'AbCdEf0123456789_-xyz';
const account = { userId: USER_ID, workspaceId: WORKSPACE_ID };
/** A command's data: the account's and the fields given, at NOW. */
const asked = <Fields extends object>(fields: Fields) => ({ ...account, ...fields, now: NOW });
/** An event's data: the account's and the fields given, stamped NOW_ISO. */
const recorded = <Fields extends object>(fields: Fields) => ({
  ...account,
  ...fields,
  occurredAt: NOW_ISO,
});

const signedIn: UserEvent = {
  type: 'UserSignedIn',
  data: recorded({ sessionId: SESSION_ID, method: 'password' as const }),
};

describe('the account record', () => {
  it('SetPassword records the password by its credential, never its hash', () => {
    given([])
      .when({ type: 'SetPassword', data: asked({ credentialId: CREDENTIAL_ID }) })
      .then([{ type: 'UserPasswordSet', data: recorded({ credentialId: CREDENTIAL_ID }) }]);
  });

  it('RecordSignIn records the session and how the person signed in', () => {
    const signIn = { sessionId: SESSION_ID, method: 'passkey' as const };
    given([signedIn])
      .when({ type: 'RecordSignIn', data: asked(signIn) })
      .then([{ type: 'UserSignedIn', data: recorded(signIn) }]);
  });

  it('RecordFailedSignIn names the passkey that failed, and no credential for a password', () => {
    const failure = { reason: 'passkey' as const, credentialId: PASSKEY_ID };
    given([])
      .when({ type: 'RecordFailedSignIn', data: asked(failure) })
      .then([{ type: 'UserSignInFailed', data: recorded(failure) }]);
    // (a credential id sneaked into a password failure does not reach the record)
    const command = {
      type: 'RecordFailedSignIn',
      data: asked({ reason: 'password', credentialId: PASSKEY_ID }),
    } as unknown as UserCommand;
    given([signedIn])
      .when(command)
      .then([{ type: 'UserSignInFailed', data: recorded({ reason: 'password' as const }) }]);
  });

  it('RecordSignOut and RevokeSession name the session that ended', () => {
    const session = { sessionId: SESSION_ID };
    given([signedIn])
      .when({ type: 'RecordSignOut', data: asked(session) })
      .then([{ type: 'UserSignedOut', data: recorded(session) }]);
    given([signedIn])
      .when({ type: 'RevokeSession', data: asked(session) })
      .then([{ type: 'UserSessionRevoked', data: recorded(session) }]);
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
      .when({ type: 'AddPasskey', data: asked({ ...passkey, name: ' Work\u202Elaptop\n ' }) })
      .then([{ type: 'PasskeyAdded', data: recorded({ ...passkey, name: 'Work laptop' }) }]);
    given([signedIn])
      .when({ type: 'RemovePasskey', data: asked({ credentialId: PASSKEY_ID }) })
      .then([{ type: 'PasskeyRemoved', data: recorded({ credentialId: PASSKEY_ID }) }]);
  });

  it('every command makes exactly one event of the account, whatever its past', () => {
    const past = [signedIn, signedIn];
    const state = past.reduce(evolve, initialState());
    expect(state.events).toBe(2); // the stream's length, for the append: all the state there is
    const made = recordOf({ type: 'RecordSignOut', data: asked({ sessionId: SESSION_ID }) });
    expect(made).toHaveLength(1);
    expect(made[0]?.data.userId).toBe(USER_ID);
  });
});
