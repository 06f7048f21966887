// The metadata events written directly by tests carry: an admin named "test".
import type { EventMetadata } from '../../src/app/eventContext.ts';

export const TEST_METADATA: EventMetadata = { actor: { type: 'admin', id: 'test' } };
