package io.punctual.worker.claim;

import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * Which namespaces may be claimed from now ({@code claimable}: false once deactivated), and each
 * one's weight, its share of the free slots ({@link FairShare}).
 */
public record NamespaceShares(Predicate<String> claimable, ToIntFunction<String> weight) {}
