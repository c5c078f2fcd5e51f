/** Numbers of the console API's messages: finite, and at least 0 where the field says so. */
import { z } from 'zod';

export const finite = z.number().refine(Number.isFinite, 'must be a finite number');
export const nonNegative = finite.refine((v) => v >= 0, 'must be 0 or more');
