import Foundation

// Where a collection's items come from: the data source protocol and the block that makes a cell.

/// Makes an item's cell; runs on a display worker.
public typealias CellNodeBlock = @Sendable () -> CellNode

/// Where a `CollectionNode`'s items come from (Texture's `ASCollectionDataSource`). Main thread.
@MainActor
public protocol CollectionDataSource: AnyObject, Sendable {
    /// How many items there are.
    func numberOfItems(in collectionNode: CollectionNode) -> Int

    /// A block that makes item `index`'s cell. Asked on the main thread when the item nears the
    /// viewport; the block runs on a display worker, which also measures the cell. Each item gets
    /// its own cell (no reuse); a reloaded item gets a new one.
    func collectionNode(_ collectionNode: CollectionNode, nodeBlockForItemAt index: Int) -> CellNodeBlock

    /// The size item `index` is placed at until its cell is measured. The default is the size
    /// range's width and the collection's `estimatedItemHeight`.
    func collectionNode(
        _ collectionNode: CollectionNode, estimatedSizeForItemAt index: Int,
        in sizeRange: SizeRange
    ) -> CGSize
}

extension CollectionDataSource {
    public func collectionNode(
        _ collectionNode: CollectionNode, estimatedSizeForItemAt index: Int,
        in sizeRange: SizeRange
    ) -> CGSize {
        let width = sizeRange.max.width.isFinite ? sizeRange.max.width : sizeRange.min.width
        return CGSize(
            width: width, height: sizeRange.clamp(CGSize(width: width, height: collectionNode.estimatedItemHeight)).height)
    }
}
