import Foundation

// What the range overlay shows of a collection: its snapshot of the ranges and the items' states.

extension CollectionNode {
    /// What the range overlay draws for this collection now: the last turn's ranges and the items
    /// across the span the overlay's panel maps, each with its state and whether it has a cell.
    @MainActor
    public func rangeOverlaySnapshot() -> RangeOverlaySnapshot {
        let ranges = self.ranges
        let viewportInWindow = CGRect(origin: isNodeLoaded ? layer.convertToWindow(.zero) : .zero, size: bounds.size)
        var snapshot = RangeOverlaySnapshot(
            contentSize: CGSize(width: bounds.width, height: contentHeight), viewport: ranges.viewport,
            displayRange: ranges.display, preloadRange: ranges.preload, items: [], viewportInWindow: viewportInWindow,
            caption: "")
        let span = RangeOverlayLayout.span(of: snapshot)
        let spanRect = CGRect(
            x: -CGFloat.greatestFiniteMagnitude / 4, y: span.lowerBound,
            width: CGFloat.greatestFiniteMagnitude / 2, height: span.upperBound - span.lowerBound)
        snapshot.items = dataController.model.withLock { m in
            m.layout.indices(intersecting: spanRect).map { index in
                let item = m.items[index]
                let state: RangeOverlaySnapshot.ItemState =
                    item.state.contains(.visible)
                    ? .visible
                    : item.state.contains(.display)
                        ? .display
                        : item.state.contains(.preload) ? .preload : .none
                return .init(frame: m.layout.frames[index], state: state, isAllocated: item.node != nil)
            }
        }
        let direction: String
        switch scrollDirection {
        case .none: direction = "at rest"
        case .up: direction = "up"
        case .down: direction = "down"
        }
        snapshot.caption =
            "\(ranges.mode == .full ? "full" : "minimum") · \(direction) · \(Int(scrollSpeed.rounded()).formatted()) pt/s"
        return snapshot
    }
}
