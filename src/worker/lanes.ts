// How many processing lanes a daemon or worker runs unless told: one per core.
import { availableParallelism } from 'node:os';

export const defaultLanes = () => availableParallelism();
