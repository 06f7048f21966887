// What each plan allows. Breaking a limit is a 422 whose message names the limit.
import { RuleBroken } from './errors.ts';
import type { Plan } from './workspace/workspace.ts';

export type PlanLimits = {
  maxUploadBytes: number;
  maxFlipbooks: number;
  maxPagesPerVersion: number;
  maxVersionsPerFlipbook: number;
};

const MB = 1024 * 1024;

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    maxUploadBytes: 50 * MB,
    maxFlipbooks: 10,
    maxPagesPerVersion: 200,
    maxVersionsPerFlipbook: 20,
  },
  team: {
    maxUploadBytes: 512 * MB,
    maxFlipbooks: 10_000,
    maxPagesPerVersion: 2_000,
    maxVersionsPerFlipbook: 1_000,
  },
};

export const checkUploadSize = (plan: Plan, bytes: number) => {
  const limit = PLAN_LIMITS[plan].maxUploadBytes;
  if (bytes > limit) {
    throw new RuleBroken(
      `File too large for the ${plan} plan: the upload limit is ${limit / MB} MB, this file is ${(bytes / MB).toFixed(1)} MB`,
    );
  }
};

export const checkPageCount = (plan: Plan, pages: number) => {
  const limit = PLAN_LIMITS[plan].maxPagesPerVersion;
  if (pages > limit) {
    throw new RuleBroken(
      `Too many pages for the ${plan} plan: the limit is ${limit} pages per document, this one has ${pages}`,
    );
  }
};

export const checkFlipbookCount = (plan: Plan, existing: number) => {
  const limit = PLAN_LIMITS[plan].maxFlipbooks;
  if (existing >= limit) {
    throw new RuleBroken(`Flipbook limit reached: the ${plan} plan allows ${limit} flipbooks`);
  }
};

export const checkVersionCount = (plan: Plan, existing: number) => {
  const limit = PLAN_LIMITS[plan].maxVersionsPerFlipbook;
  if (existing >= limit) {
    throw new RuleBroken(
      `Version limit reached: the ${plan} plan allows ${limit} versions per flipbook`,
    );
  }
};
