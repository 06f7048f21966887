// The publishing commands: they speak only HTTP to a flipbook server (the Client API), so they
// make the client package (packages/cli) on their own, and the server's `flipbook` carries them
// beside its admin commands.
import type { Command } from 'commander';
import { registerEvents } from './events.ts';
import { registerList } from './list.ts';
import { registerLogin } from './login.ts';
import { registerManage } from './manage.ts';
import { registerPreview } from './preview.ts';
import { registerPublish } from './publish.ts';
import { registerReader } from './reader.ts';
import { registerShare } from './share.ts';
import { registerShow } from './show.ts';
import { registerStats } from './stats.ts';
import { registerStatus } from './status.ts';
import { registerVersion } from './version.ts';
import { registerWebhook } from './webhook.ts';

/**
 * @param options.events false for the server's `flipbook`, whose `events FLIPBOOK_ID` is the
 *   admin command (a flipbook's events, read from the store)
 */
export const registerClientCommands = (program: Command, options: { events?: boolean } = {}) => {
  registerPublish(program);
  registerVersion(program);
  registerStatus(program);
  registerPreview(program);
  registerList(program);
  registerShow(program);
  registerManage(program);
  registerShare(program);
  registerReader(program);
  registerStats(program);
  registerLogin(program);
  registerWebhook(program);
  if (options.events !== false) registerEvents(program);
};
