package io.punctual.spring;

import io.punctual.model.Priority;
import io.punctual.queue.config.QueueSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code punctual.queue.*}: how jobs move from PostgreSQL into Redis and how workers share the
 * priorities, the YAML's {@code queue} section with its defaults. Keep them the deployment's: every
 * process of it reads the same queues. Validated as the YAML's, naming the property.
 */
public class QueueProperties {
  private static final QueueSettings DEFAULTS = new QueueSettings();

  /** Jobs due within this window go into Redis at once; later ones by the promoter. */
  private Duration horizon = DEFAULTS.horizon;

  /** How often the promoter looks for jobs entering the horizon. */
  private Duration promoterInterval = DEFAULTS.promoterInterval;

  /** How far the promoter stays behind the horizon's edge; smaller than the horizon. */
  private Duration promoterSlack = DEFAULTS.promoterSlack;

  /**
   * How long jobs put back after Redis lost its data wait, if already due (a live worker writes the
   * claims it held unwritten meanwhile); at least {@code 2 × worker.claim-write-after + 2 s}.
   */
  private Duration recoveryHoldBack = DEFAULTS.recoveryHoldBack;

  /**
   * Each priority's share of claims while all have due work ({@code critical}, {@code high}, {@code
   * normal}, {@code low}); a priority left out keeps its default weight.
   */
  private Map<String, Integer> weights = new LinkedHashMap<>();

  /** Always drain higher priorities first (lower ones may starve). */
  private boolean strictPriority = DEFAULTS.strictPriority;

  /**
   * The YAML's settings with these values; {@code problems} gets {@code queue.weights.<name> is not
   * a priority} for a key no priority has.
   */
  QueueSettings toSettings(java.util.List<String> problems) {
    QueueSettings s = new QueueSettings();
    s.horizon = horizon;
    s.promoterInterval = promoterInterval;
    s.promoterSlack = promoterSlack;
    s.strictPriority = strictPriority;
    s.recoveryHoldBack = recoveryHoldBack;
    weights.forEach(
        (name, weight) -> {
          var priority = Priority.parse(name);
          if (priority.isEmpty()) {
            problems.add(
                "queue.weights." + name + " is not a priority (critical, high, normal or low)");
          } else if (weight == null || weight < 1) {
            problems.add("queue.weights." + name + " must be at least 1");
          } else {
            s.weights.put(priority.get(), weight);
          }
        });
    return s;
  }

  public Duration getHorizon() {
    return horizon;
  }

  public void setHorizon(Duration horizon) {
    this.horizon = horizon;
  }

  public Duration getPromoterInterval() {
    return promoterInterval;
  }

  public void setPromoterInterval(Duration promoterInterval) {
    this.promoterInterval = promoterInterval;
  }

  public Duration getPromoterSlack() {
    return promoterSlack;
  }

  public void setPromoterSlack(Duration promoterSlack) {
    this.promoterSlack = promoterSlack;
  }

  public Duration getRecoveryHoldBack() {
    return recoveryHoldBack;
  }

  public void setRecoveryHoldBack(Duration recoveryHoldBack) {
    this.recoveryHoldBack = recoveryHoldBack;
  }

  public Map<String, Integer> getWeights() {
    return weights;
  }

  public void setWeights(Map<String, Integer> weights) {
    this.weights = weights;
  }

  public boolean isStrictPriority() {
    return strictPriority;
  }

  public void setStrictPriority(boolean strictPriority) {
    this.strictPriority = strictPriority;
  }
}
