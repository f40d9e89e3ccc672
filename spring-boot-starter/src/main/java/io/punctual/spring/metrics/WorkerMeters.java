package io.punctual.spring.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.MetricRegistryListener;
import com.codahale.metrics.Timer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.concurrent.TimeUnit;

/**
 * The embedded worker's Dropwizard meters in the application's Micrometer registry (and so in
 * Actuator, Prometheus included), under the same names: a Dropwizard meter or histogram as a
 * counter of its count, a counter or numeric gauge as a gauge, a timer as a function timer (its
 * count, and its total time taken as the mean of its recent samples times the count: an
 * approximation). Meters the worker adds later (per job type, at start) follow.
 */
public final class WorkerMeters implements MeterBinder {
  private final MetricRegistry dropwizard;

  public WorkerMeters(WorkerMetricRegistry registry) {
    this.dropwizard = registry.registry();
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    // Dropwizard tells a new listener of every metric already there, then of each one added.
    dropwizard.addListener(new Bridge(registry));
  }

  private static final class Bridge extends MetricRegistryListener.Base {
    private final MeterRegistry micrometer;

    Bridge(MeterRegistry micrometer) {
      this.micrometer = micrometer;
    }

    @Override
    public void onMeterAdded(String name, Meter meter) {
      FunctionCounter.builder(name, meter, Meter::getCount).register(micrometer);
    }

    @Override
    public void onHistogramAdded(String name, Histogram histogram) {
      FunctionCounter.builder(name, histogram, Histogram::getCount).register(micrometer);
    }

    @Override
    public void onCounterAdded(String name, Counter counter) {
      io.micrometer.core.instrument.Gauge.builder(name, counter, Counter::getCount)
          .register(micrometer);
    }

    @Override
    public void onGaugeAdded(String name, Gauge<?> gauge) {
      io.micrometer.core.instrument.Gauge.builder(name, gauge, Bridge::numberOf)
          .register(micrometer);
    }

    @Override
    public void onTimerAdded(String name, Timer timer) {
      FunctionTimer.builder(
              name,
              timer,
              Timer::getCount,
              t -> t.getSnapshot().getMean() * t.getCount(),
              TimeUnit.NANOSECONDS)
          .register(micrometer);
    }

    @Override
    public void onGaugeRemoved(String name) {
      micrometer.find(name).meters().forEach(micrometer::remove);
    }

    private static double numberOf(Gauge<?> gauge) {
      return gauge.getValue() instanceof Number n ? n.doubleValue() : Double.NaN;
    }
  }
}
