// What the runner gives the action, read once: its inputs (INPUT_* variables, through
// @actions/core), the event (GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH), the
// repository, and the GitHub API's root (GITHUB_API_URL: GitHub Enterprise Server has its own).
import { readFile } from 'node:fs/promises';
import * as core from '@actions/core';
import type { Connection } from '../../cli/src/client/config.ts';
import { ActionError } from './actionError.ts';

/** The part of a pull_request event's payload the action reads. */
export type PullRequestPayload = {
  action: string;
  number: number;
  pull_request: { number: number; merged: boolean; head: { sha: string } };
};

export type Github = { api: string; token: string; owner: string; repo: string };

export type RunnerContext = {
  connection: Connection;
  file: string;
  slug: string;
  timeoutMs: number;
  eventName: string;
  /** read only for the events that need it */
  payload: () => Promise<unknown>;
  github: () => Github;
};

export const SUPPORTED_EVENTS = ['pull_request', 'push'] as const;

/** The service's root, as the CLI takes it: no trailing slash, an /api/v1 ending dropped. */
const serviceRoot = (url: string) => {
  if (!/^https?:\/\/[^/]/.test(url))
    throw new ActionError(`The url input is not an http(s) URL: ${url}`);
  return url.replace(/\/+$/, '').replace(/\/api\/v1\/*$/, '');
};

export const readRunnerContext = (): RunnerContext => {
  const apiKey = core.getInput('api-key', { required: true });
  core.setSecret(apiKey);
  const timeout = Number(core.getInput('timeout') || '600');
  if (!(timeout > 0))
    throw new ActionError(
      `The timeout input is not a number of seconds: ${core.getInput('timeout')}`,
    );
  return {
    connection: {
      url: serviceRoot(core.getInput('url', { required: true })),
      apiKey,
      urlSource: 'input',
      keySource: 'input',
    },
    file: core.getInput('file', { required: true }),
    slug: core.getInput('slug', { required: true }),
    timeoutMs: timeout * 1000,
    eventName: process.env.GITHUB_EVENT_NAME ?? '',
    payload: async () => {
      const path = process.env.GITHUB_EVENT_PATH;
      if (!path)
        throw new ActionError('GITHUB_EVENT_PATH is not set: is this running on a GitHub runner?');
      return JSON.parse(await readFile(path, 'utf8')) as unknown;
    },
    github: () => {
      const token = core.getInput('github-token');
      if (!token)
        throw new ActionError('The github-token input is empty (its default is github.token)');
      const [owner, repo] = (process.env.GITHUB_REPOSITORY ?? '').split('/');
      if (!owner || !repo) throw new ActionError('GITHUB_REPOSITORY is not owner/name');
      const api = (process.env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
      return { api, token, owner, repo };
    },
  };
};
