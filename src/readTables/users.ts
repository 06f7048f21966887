// Read tables `users` and `invitations`: the people of each workspace and the invitations
// pending, from the workspace streams' membership events and the user streams' password events.
// An email belongs to one person in the whole service (it is how they sign in).
import type { Role } from '../domain/workspace/workspace.ts';
import { queryRow, queryRows } from './queryRows.ts';
import type { Db, ReadTable } from './readTable.ts';
import { utc } from './sql.ts';

export const users: ReadTable = {
  table: 'users',
  ddl: `CREATE TABLE IF NOT EXISTS users (
    user_id UUID PRIMARY KEY,
    workspace_id UUID NOT NULL,
    email TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    password_credential_id UUID
  );
  CREATE INDEX IF NOT EXISTS users_workspace ON users (workspace_id)`,
  handles: [
    'InvitationAccepted',
    'MemberJoined',
    'MemberRoleChanged',
    'MemberRemoved',
    'UserPasswordSet',
  ],
  apply: async (db, event) => {
    switch (event.type) {
      case 'InvitationAccepted':
      case 'MemberJoined': {
        const { userId, workspaceId, email, role, occurredAt } = event.data;
        await db.query(
          `INSERT INTO users (user_id, workspace_id, email, role, created_at)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT (user_id) DO NOTHING`,
          [userId, workspaceId, email, role, occurredAt],
        );
        return;
      }
      case 'MemberRoleChanged':
        await db.query('UPDATE users SET role = $2 WHERE user_id = $1', [
          event.data.userId,
          event.data.role,
        ]);
        return;
      case 'MemberRemoved':
        // The email may be invited again (as a new person); the removed one's events stay.
        await db.query('DELETE FROM users WHERE user_id = $1', [event.data.userId]);
        return;
      case 'UserPasswordSet':
        await db.query('UPDATE users SET password_credential_id = $2 WHERE user_id = $1', [
          event.data.userId,
          event.data.credentialId,
        ]);
        return;
    }
  },
};

export const invitations: ReadTable = {
  table: 'invitations',
  ddl: `CREATE TABLE IF NOT EXISTS invitations (
    invitation_id UUID PRIMARY KEY,
    workspace_id UUID NOT NULL,
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    expires_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    user_id UUID,
    status TEXT NOT NULL,
    invited_by JSONB
  );
  CREATE INDEX IF NOT EXISTS invitations_workspace ON invitations (workspace_id)`,
  handles: ['UserInvited', 'InvitationRevoked', 'InvitationAccepted'],
  apply: async (db, event) => {
    if (event.type === 'UserInvited') {
      const d = event.data;
      await db.query(
        `INSERT INTO invitations (invitation_id, workspace_id, email, role, token_hash,
           expires_at, created_at, user_id, status, invited_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9)
         ON CONFLICT (invitation_id) DO NOTHING`,
        [
          d.invitationId,
          d.workspaceId,
          d.email,
          d.role,
          d.tokenHash,
          d.expiresAt,
          d.occurredAt,
          d.userId ?? null,
          JSON.stringify(event.metadata?.actor ?? null),
        ],
      );
    } else if (event.type === 'InvitationRevoked' || event.type === 'InvitationAccepted') {
      await db.query('UPDATE invitations SET status = $2 WHERE invitation_id = $1', [
        event.data.invitationId,
        event.type === 'InvitationAccepted' ? 'accepted' : 'revoked',
      ]);
    }
  },
};

export type UserRow = {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  created_at: string;
  password_credential_id: string | null;
};

const userColumns = `u.user_id AS id, u.workspace_id, u.email, u.role, ${utc('u.created_at', 'created_at')},
  u.password_credential_id`;

export const findUserByEmail = async (db: Db, email: string) =>
  queryRow<UserRow>(db, `SELECT ${userColumns} FROM users u WHERE email = $1`, [email]);

export const findUser = async (db: Db, userId: string) =>
  queryRow<UserRow>(db, `SELECT ${userColumns} FROM users u WHERE user_id = $1`, [userId]);

export const listUsers = async (db: Db, workspaceId?: string) =>
  queryRows<UserRow & { workspace: string }>(
    db,
    `SELECT ${userColumns}, w.name AS workspace FROM users u JOIN workspaces w USING (workspace_id)
       WHERE $1::uuid IS NULL OR u.workspace_id = $1 ORDER BY w.name, u.email`,
    [workspaceId ?? null],
  );

export type InvitationRow = {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  expires_at: string;
  created_at: string;
  user_id: string | null;
  status: 'pending' | 'accepted' | 'revoked';
  invited_by: unknown;
};

const invitationColumns = `invitation_id AS id, workspace_id, email, role, ${utc('expires_at')},
  ${utc('created_at')}, user_id, status, invited_by`;

export const findInvitationByTokenHash = async (db: Db, tokenHash: string) =>
  queryRow<InvitationRow>(
    db,
    `SELECT ${invitationColumns} FROM invitations WHERE token_hash = $1`,
    [tokenHash],
  );

export const listPendingInvitations = async (db: Db, workspaceId: string) =>
  queryRows<InvitationRow>(
    db,
    `SELECT ${invitationColumns} FROM invitations
       WHERE workspace_id = $1 AND status = 'pending' AND expires_at > now()
         -- a link whose email has an account it was not made for is used up (people.ts)
         AND NOT EXISTS (SELECT 1 FROM users u WHERE u.email = invitations.email
           AND u.user_id IS DISTINCT FROM invitations.user_id)
       ORDER BY created_at`,
    [workspaceId],
  );
