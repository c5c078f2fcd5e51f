/**
 * Bounds of the numbers a calibration is stored with. Calibrations are loaded from files written
 * by the wizard, the CLI or by hand, so their numbers are checked, not trusted: a zero or
 * non-unit quaternion scales every pose, a translation of 1e308 puts the table nowhere, and a
 * residual is what the stored points say, not what the file claims.
 */
export const CALIBRATION_LIMITS = {
  /** Largest |component| of a translation or a calibration point, m: a lab room, not a building. */
  distance: 10,
  /** A rotation quaternion's norm may differ from 1 by this much (JSON keeps ~16 digits). */
  unitTolerance: 1e-6,
  /** A stored residual may differ from the one its points give by this much, m (rounding). */
  residualTolerance: 1e-6,
} as const;
