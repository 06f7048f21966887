// The metadata events written directly by tests carry: an admin named "test"; and how the trail
// shows an event that carries none (written before the audit trail): an unknown actor, no context.
import type { EventMetadata } from '../../src/app/eventContext.ts';

export const TEST_METADATA: EventMetadata = { actor: { type: 'admin', id: 'test' } };

export const UNKNOWN_METADATA = {
  actor: { type: 'unknown' },
  request_id: null,
  client_ip: null,
  user_agent: null,
  correlation_id: null,
  causation_id: null,
};
