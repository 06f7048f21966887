// How many documents a daemon or worker processes at once, and how many renderer processes they
// share, unless told. More documents than cores: a short one is taken up while long ones render,
// and the render slots (src/pdf/renderSlots.ts) share the cores between them.
import { availableParallelism } from 'node:os';

export const defaultLanes = () => Math.max(4, availableParallelism());

export const defaultRenderProcesses = () => availableParallelism();
