package io.punctual.client;

/**
 * A job another one waits for, as the API shows it: {@code required} (it must SUCCEED, run
 * condition {@code ON_SUCCESS}) or not ({@code ALWAYS}: it only has to end; {@code ON_FAILURE}: a
 * follow-up a handler spawned may wait for a job to fail).
 */
public record DependencyView(String id, boolean required, RunCondition runCondition) {}
