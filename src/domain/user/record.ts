// A person's account record (their `user-<id>` stream): not a decider. Nothing here reads the
// account's past: a sign-in, a password or a passkey is a fact the use case has already checked
// against the read tables (sessions, credentials, passkeys: src/app/accounts/*), so each command
// becomes its event. What this file decides is the record's shape: who, which workspace, when,
// and nothing secret (a password is named by its credential's id, never hashed into an event).
// Time and ids come in with the command.
import { iso } from '../iso.ts';
import { passkeyName } from './passkey.ts';
import type { PasskeyAdded, SignInMethod, UserEvent } from './user.ts';

/** Whose account, in which workspace. */
type Account = { userId: string; workspaceId: string };

export type SetPassword = {
  type: 'SetPassword';
  data: Account & { credentialId: string; now: Date };
};
export type RecordSignIn = {
  type: 'RecordSignIn';
  data: Account & { sessionId: string; method: SignInMethod; now: Date };
};
/** A wrong password, or a passkey answer that did not verify (which passkey, then). */
export type RecordFailedSignIn = {
  type: 'RecordFailedSignIn';
  data: Account &
    ({ reason: 'password' } | { reason: 'passkey'; credentialId: string }) & {
      now: Date;
    };
};
export type RecordSignOut = {
  type: 'RecordSignOut';
  data: Account & { sessionId: string; now: Date };
};
export type RevokeSession = {
  type: 'RevokeSession';
  data: Account & { sessionId: string; now: Date };
};
/** A new passkey as its event records it (the name still as the person typed it). */
export type AddPasskey = {
  type: 'AddPasskey';
  data: Account & Omit<PasskeyAdded['data'], keyof Account | 'occurredAt'> & { now: Date };
};
export type RemovePasskey = {
  type: 'RemovePasskey';
  data: Account & { credentialId: string; now: Date };
};

export type UserCommand =
  | SetPassword
  | RecordSignIn
  | RecordFailedSignIn
  | RecordSignOut
  | RevokeSession
  | AddPasskey
  | RemovePasskey;

/** The event that records a command on an account (the stream's past is not read). */
export const recordOf = (command: UserCommand): UserEvent[] => {
  const { userId, workspaceId } = command.data;
  const occurredAt = iso(command.data.now);
  switch (command.type) {
    case 'SetPassword':
      return [
        {
          type: 'UserPasswordSet',
          data: { userId, workspaceId, credentialId: command.data.credentialId, occurredAt },
        },
      ];
    case 'RecordSignIn': {
      const { sessionId, method } = command.data;
      return [
        { type: 'UserSignedIn', data: { userId, workspaceId, sessionId, method, occurredAt } },
      ];
    }
    case 'RecordFailedSignIn': {
      const which =
        command.data.reason === 'passkey'
          ? { reason: 'passkey' as const, credentialId: command.data.credentialId }
          : { reason: 'password' as const };
      return [{ type: 'UserSignInFailed', data: { userId, workspaceId, ...which, occurredAt } }];
    }
    case 'RecordSignOut':
      return [
        {
          type: 'UserSignedOut',
          data: { userId, workspaceId, sessionId: command.data.sessionId, occurredAt },
        },
      ];
    case 'RevokeSession':
      return [
        {
          type: 'UserSessionRevoked',
          data: { userId, workspaceId, sessionId: command.data.sessionId, occurredAt },
        },
      ];
    case 'AddPasskey': {
      const { credentialId, publicKey, transports, deviceType, backedUp, aaguid } = command.data;
      // (its name as passkeyName (./passkey.ts) made it, folded and bounded)
      const name = passkeyName(command.data.name, 'Passkey');
      return [
        {
          type: 'PasskeyAdded',
          data: {
            userId,
            workspaceId,
            credentialId,
            name,
            publicKey,
            transports,
            deviceType,
            backedUp,
            aaguid,
            occurredAt,
          },
        },
      ];
    }
    case 'RemovePasskey':
      return [
        {
          type: 'PasskeyRemoved',
          data: { userId, workspaceId, credentialId: command.data.credentialId, occurredAt },
        },
      ];
  }
};
