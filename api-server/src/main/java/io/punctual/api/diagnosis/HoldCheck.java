package io.punctual.api.diagnosis;

import io.punctual.model.Job;
import java.util.List;

/**
 * The extension point of a diagnosis for what else may hold a PENDING job that is due: a paused
 * queue, a concurrency or rate limit of its namespace or type. Each feature that can hold jobs adds
 * an implementation to the list {@code ApiModule} gives {@link Diagnoser}; its reasons are listed
 * after the built-in ones (use codes of its own, e.g. {@code QUEUE_PAUSED}, {@code LIMIT_REACHED}).
 */
public interface HoldCheck {
  /** The reasons that hold {@code job} (PENDING and due) now; empty when none. */
  List<Reason> reasons(Job job);
}
