// Response helpers: every body is JSON, every error is {"error": message}.
import type { ServerResponse } from 'node:http';
import send from '@polka/send-type';

export const sendJson = (res: ServerResponse, status: number, body: unknown) =>
  send(res, status, body, { 'Content-Type': 'application/json; charset=utf-8' });

export const sendError = (res: ServerResponse, status: number, message: string) =>
  sendJson(res, status, { error: message });
