package io.punctual.worker.claim;

import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * Which namespaces may be claimed from now ({@code claimable}: false once deactivated), each one's
 * weight, its share of the free slots ({@link FairShare}), and the caps on their running attempts
 * ({@link NamespaceCaps}).
 */
public record NamespaceShares(
    Predicate<String> claimable, ToIntFunction<String> weight, NamespaceCaps caps) {}
