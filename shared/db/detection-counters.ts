import { DETECTIONS } from '../domain/insights/counters.ts';
import { type Dimension, dimensionCounter, NO_KEY } from '../domain/insights/insight-counters.ts';
import { type Change, counter } from './change-set.ts';
import { dayUnitsCounter } from './insight-items.ts';
import { key } from './keys.ts';
import { monthCounter } from './month-keys.ts';

/** What the detection counters need of a detection. */
export type CountedDetection = {
  orgId: string;
  source: string;
  createdAt: string;
  asset: { type: string };
  brands: readonly { slug: string }[];
};

/**
 * The counter updates a new detection adds in the transaction that records it (detections are
 * recorded once and never withdrawn): `detections` in the day item of its organization and of
 * each of its brands, and its breakdowns by type, source and first brand in the organization's
 * insight day and month items. Shard 0: detections are few beside the activity the shards spread.
 * The day items' `total` is left alone, so a day with detections alone is no activity to the
 * metrics' dense series.
 */
export const detectionCounterChanges = (detection: CountedDetection): Change[] => {
  const day = detection.createdAt.slice(0, 10);
  const keys: Record<Dimension, string> = {
    type: detection.asset.type,
    source: detection.source.toLowerCase(),
    brand: detection.brands[0]?.slug ?? NO_KEY,
  };
  const breakdowns = Object.fromEntries(
    (Object.entries(keys) as [Dimension, string][]).map(([dimension, value]) => [
      dimensionCounter('detections', dimension, value),
      1,
    ]),
  );
  const units = Object.keys(breakdowns).length;
  return [
    counter(key.orgDay(detection.orgId, day), { [DETECTIONS]: 1 }),
    ...detection.brands.map(({ slug }) => counter(key.brandDay(detection.orgId, slug, day), { [DETECTIONS]: 1 })),
    counter(key.insightDay(detection.orgId, day), breakdowns),
    monthCounter(key.insightMonth(detection.orgId, day.slice(0, 7)), {
      ...breakdowns,
      [dayUnitsCounter(day.slice(8, 10))]: units,
    }),
  ];
};
