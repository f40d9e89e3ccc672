package io.punctual.worker.claim;

import io.punctual.queue.lease.Redlock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The fence of a claim held unwritten, checked before the claim or its attempt's end is written.
 * The job's row says nothing of such a claim (still PENDING with the attempt before), so the
 * attempt number cannot tell this worker from another that took the same attempt after this one's
 * lease lapsed (a pause longer than the lease, with no death watch seeing it in time): only the
 * lease can. A claim whose lease was last known to be this worker's more than half {@code
 * worker.leaseTtl} ago asks Redis first: renewed, or taken again if nobody holds it (then nobody
 * else holds the attempt either: PostgreSQL's guards refuse it if another worker ended it
 * meanwhile); held by another worker, it is lapsed, and neither the claim nor the end is written.
 *
 * <p>A claim younger than that needs no question: its lease, taken or confirmed less than half its
 * TTL ago, has at least that half left, more than any write takes. Only claims kept unwritten by a
 * pause or an outage get that old ({@code worker.claimWriteAfter} is at most a second), so a drain
 * asks Redis nothing more.
 */
public final class UnwrittenLeases {
  private final UnwrittenClaims claims;
  private final Redlock redlock;
  private final String workerId;
  private final Duration leaseTtl;

  public UnwrittenLeases(
      UnwrittenClaims claims, Redlock redlock, String workerId, Duration leaseTtl) {
    this.claims = claims;
    this.redlock = redlock;
    this.workerId = workerId;
    this.leaseTtl = leaseTtl;
  }

  /**
   * Of {@code ids} (jobs whose claims may be held unwritten here), those whose leases lapsed to
   * another worker: their claims must not be written, nor their ends. Confirms the others it had to
   * ask about. Throws when Redis failed (nothing is written then; the caller tries again).
   */
  public Set<UUID> lapsed(Collection<UUID> ids) {
    List<UUID> unsure = claims.leaseUnsure(ids, leaseTtl.toNanos() / 2);
    if (unsure.isEmpty()) {
      return Set.of();
    }
    long asked = claims.nanoTime();
    Set<UUID> held = redlock.renewOrAcquire(unsure, workerId, leaseTtl);
    claims.leaseConfirmed(held, asked);
    Set<UUID> lapsed = new HashSet<>(unsure);
    lapsed.removeAll(held);
    return lapsed;
  }
}
