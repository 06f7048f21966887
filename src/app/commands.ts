// The one way commands reach a stream: the aggregate's decider, run by handleCommand.

import { decide as decideFlipbook, type FlipbookCommand } from '../domain/flipbook/decide.ts';
import * as flipbook from '../domain/flipbook/flipbook.ts';
import { recordOf, type UserCommand } from '../domain/user/record.ts';
import * as user from '../domain/user/user.ts';
import { decide as decideWorkspace, type WorkspaceCommand } from '../domain/workspace/decide.ts';
import * as workspace from '../domain/workspace/workspace.ts';
import { decisionEvents, streamLength } from '../queries/eventLog.ts';
import { handleCommand } from '../store/handleCommand.ts';
import type { Store } from '../store/store.ts';
import type { EventMetadata } from './eventContext.ts';

export const runWorkspaceCommand = (
  store: Store,
  workspaceId: string,
  command: WorkspaceCommand,
  metadata: EventMetadata,
) =>
  handleCommand(
    store.events,
    workspace.workspaceStream(workspaceId),
    workspace,
    (state) => decideWorkspace(command, state),
    metadata,
  );

export const runFlipbookCommand = (
  store: Store,
  flipbookId: string,
  command: FlipbookCommand,
  metadata: EventMetadata,
) =>
  handleCommand(
    store.events,
    flipbook.flipbookStream(flipbookId),
    flipbook,
    (state) => decideFlipbook(command, state),
    metadata,
    // A flipbook's stream grows with every version's page lists; its decisions never read them.
    async (stream) => {
      const { events, version } = await decisionEvents(store.db, stream);
      return { events: events as unknown as flipbook.FlipbookEvent[], version };
    },
  );

/** A command on a person's account, on their stream. */
export const runUserCommand = (store: Store, command: UserCommand, metadata: EventMetadata) =>
  handleCommand(
    store.events,
    user.userStream(command.data.userId),
    user,
    () => recordOf(command),
    metadata,
    async () => ({
      // No decision reads an account's past: only its version is needed, for the append.
      events: [],
      version: BigInt(await streamLength(store.db, user.userStream(command.data.userId))),
    }),
  );
