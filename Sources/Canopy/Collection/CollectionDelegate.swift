// What a collection tells its owner: the delegate protocol, with its defaults.

/// What a `CollectionNode` tells its owner (Texture's `ASCollectionDelegate`). Every method has a
/// default; all run on the main thread except `willBeginBatchFetch`, which runs on a background
/// queue (hence Sendable).
public protocol CollectionDelegate: AnyObject, Sendable {
    /// The user clicked item `index` (not on one of its controls).
    @MainActor func collectionNode(_ collectionNode: CollectionNode, didSelectItemAt index: Int)
    /// Item `index`'s cell is about to be on screen (it entered the visible state).
    @MainActor func collectionNode(_ collectionNode: CollectionNode, willDisplayItemWith node: CellNode, at index: Int)
    /// Item `index`'s cell left the screen (or the collection: then `index` is the one the item had
    /// before the update or reload that removed it).
    @MainActor func collectionNode(_ collectionNode: CollectionNode, didEndDisplayingItemWith node: CellNode, at index: Int)
    /// Whether to fetch another batch now that Texture's rule says the end is near. Default false.
    @MainActor func shouldBatchFetch(for collectionNode: CollectionNode) -> Bool
    /// Fetch the next batch, insert its items (on the main thread), then call
    /// `context.completeBatchFetching(true)`. Background queue. The default completes at once.
    func collectionNode(_ collectionNode: CollectionNode, willBeginBatchFetchWith context: BatchContext)
}

extension CollectionDelegate {
    @MainActor public func collectionNode(_ collectionNode: CollectionNode, didSelectItemAt index: Int) {}
    @MainActor public func collectionNode(_ collectionNode: CollectionNode, willDisplayItemWith node: CellNode, at index: Int) {}
    @MainActor public func collectionNode(
        _ collectionNode: CollectionNode, didEndDisplayingItemWith node: CellNode, at index: Int
    ) {}
    @MainActor public func shouldBatchFetch(for collectionNode: CollectionNode) -> Bool { false }
    public func collectionNode(_ collectionNode: CollectionNode, willBeginBatchFetchWith context: BatchContext) {
        context.completeBatchFetching(true)
    }
}
