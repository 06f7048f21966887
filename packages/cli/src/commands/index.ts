// The publishing commands: they speak only HTTP to a flipbook server (the Client API), so they
// make the client package (packages/cli) on their own, and the server's `flipbook` carries them
// beside its admin commands.
import type { Command } from 'commander';
import { registerList } from './list.ts';
import { registerLogin } from './login.ts';
import { registerManage } from './manage.ts';
import { registerPublish } from './publish.ts';
import { registerShow } from './show.ts';
import { registerStatus } from './status.ts';
import { registerVersion } from './version.ts';
import { registerWebhook } from './webhook.ts';

export const registerClientCommands = (program: Command) => {
  registerPublish(program);
  registerVersion(program);
  registerStatus(program);
  registerList(program);
  registerShow(program);
  registerManage(program);
  registerLogin(program);
  registerWebhook(program);
};
