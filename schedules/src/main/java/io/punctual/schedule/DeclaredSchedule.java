package io.punctual.schedule;

/**
 * A schedule declared in configuration (or code) rather than created through the API: registered by
 * its {@code initIdentifier} in {@code namespace} whenever a planner starts.
 */
public record DeclaredSchedule(String namespace, ScheduleDefinition definition) {}
