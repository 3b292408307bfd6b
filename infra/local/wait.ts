/**
 * Waiting for something to finish, at most so long: how the local stack's stops wait for Java,
 * requests under way, deliveries in flight and the stream poller's batch in hand.
 */

/**
 * Resolves once `promise` has settled (its outcome is the caller's business), or after `ms`. The
 * timer keeps the event loop alive meanwhile (what is awaited may hold no referenced handle, as
 * DynamoDB Local's unreferenced child: a script awaiting a stop at top level would end there, exit
 * code 13) and is cleared at once, so a quick end does not hold the process for `ms` more.
 */
export async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ignored = () => undefined;
  await Promise.race([promise.then(ignored, ignored), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
