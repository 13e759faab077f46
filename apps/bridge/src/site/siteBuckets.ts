// The site's key-value buckets in NATS JetStream (control leases, gateway places): opening one
// with as many copies as the NATS cluster can keep, up to three, so losing one node loses no
// bucket, and giving one made with fewer copies more once the cluster can hold them. Which
// buckets there are and what their keys mean is their users' (controlLeases.ts,
// gatewayLeases.ts); SiteBus names them per site and opens each once.
import type { KV, KvOptions, NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';

/**
 * Copies of each key-value bucket a NATS cluster keeps at most: three survive one node's death
 * (two would lose their quorum with it; JetStream takes 1, 3 or 5, and 5 costs more than it buys).
 */
export const MAX_BUCKET_REPLICAS = 3;

/**
 * Opens (creating it if need be) the bucket `bucket` with entries living `ttlMs`, with as many
 * copies as the cluster the bridge is connected to can keep, up to MAX_BUCKET_REPLICAS.
 */
export async function openSiteBucket(
  nc: NatsConnection,
  bucket: string,
  ttlMs: number,
  logger: Logger,
): Promise<KV> {
  const options: Partial<KvOptions> = { ttl: ttlMs, history: 1 };
  // A cluster of fewer nodes than asked for refuses the bucket ("insufficient resources"): one
  // copy fewer, down to one. A server alone refuses more than one copy.
  for (let replicas = clustered(nc) ? MAX_BUCKET_REPLICAS : 1; ; replicas -= 1) {
    try {
      const kv = await nc.jetstream().views.kv(bucket, { ...options, replicas });
      await addReplicas(nc, bucket, replicas, logger);
      return kv;
    } catch (err) {
      if (replicas <= 1 || !tooFewNodes(err)) throw err;
    }
  }
}

/** Gives an existing bucket with fewer than `replicas` copies that many (best effort). */
async function addReplicas(
  nc: NatsConnection,
  bucket: string,
  replicas: number,
  logger: Logger,
): Promise<void> {
  if (replicas <= 1) return;
  try {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(`KV_${bucket}`);
    if (info.config.num_replicas >= replicas) return;
    await jsm.streams.update(`KV_${bucket}`, { ...info.config, num_replicas: replicas });
    logger.info(
      { bucket, from: info.config.num_replicas, to: replicas },
      'site: a key-value bucket now keeps more copies',
    );
  } catch (err) {
    logger.warn(
      { bucket, err: errorMessage(err) },
      'site: a key-value bucket keeps fewer copies than the cluster could hold',
    );
  }
}

/** Whether the NATS server the bridge is connected to is one node of a cluster. */
function clustered(nc: NatsConnection): boolean {
  return nc.info?.cluster !== undefined && nc.info.cluster !== '';
}

/** JetStream refused the copies asked for: the cluster has fewer nodes (or fewer up) than that. */
function tooFewNodes(err: unknown): boolean {
  const message = errorMessage(err);
  return /insufficient resources|replicas > 1 not supported|no suitable peers/i.test(message);
}
