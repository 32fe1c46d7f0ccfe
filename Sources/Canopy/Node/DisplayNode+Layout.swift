import Foundation

extension DisplayNode {
    /// What `layoutSpecThatFits(_:)` returns when a node has neither a spec block nor an override:
    /// the node is then a leaf sized by `calculateSizeThatFits(_:)`.
    final class NoLayoutSpec: LayoutElement {
        static let shared = NoLayoutSpec()
        let style = Style()
        let layoutCache = LayoutCache()
    }

    /// Builds the node's layout spec from `layoutSpecThatFits` instead of overriding it (any thread).
    public var layoutSpecBlock: (@Sendable (DisplayNode, SizeRange) -> any LayoutElement)? {
        get { state.withLock { $0.layoutSpecBlock } }
        set {
            state.withLock { $0.layoutSpecBlock = newValue }
            setNeedsLayout()
        }
    }

    /// When true, the node's subnodes follow its layout spec: `applyLayout` adds the nodes the spec
    /// uses and removes the others, as Texture's automatic subnode management does.
    public var automaticallyManagesSubnodes: Bool {
        get { state.withLock { $0.automaticallyManagesSubnodes } }
        set { state.withLock { $0.automaticallyManagesSubnodes = newValue } }
    }

    /// The layout last computed for the node's own bounds (`layoutThatFits` fills it when the node
    /// is measured; `applyLayout` uses it).
    public var calculatedLayout: Layout? { state.withLock { $0.calculatedLayout } }

    /// Marks the node's layout stale: cached layouts of every element are dropped (a node's content
    /// or spec changed) and the next measurement recomputes it. Any thread.
    public func setNeedsLayout() {
        state.withLock { $0.calculatedLayout = nil }
        LayoutCache.invalidateAll()
    }

    /// Applies `layout` (this node's, from `layoutThatFits`) to the subtree: each subnode it names
    /// gets its frame, recursively, and the node keeps it as `calculatedLayout`. Main thread once
    /// the node is loaded; any thread before.
    public func applyLayout(_ layout: Layout) {
        state.withLock { $0.calculatedLayout = layout }
        let placed = layout.sublayouts.compactMap { sublayout in
            (sublayout.element as? DisplayNode).map { ($0, sublayout) }
        }
        if automaticallyManagesSubnodes {
            let wanted = placed.map(\.0)
            for old in subnodes where !wanted.contains(where: { $0 === old }) { old.removeFromSupernode() }
            for (index, node) in wanted.enumerated() where node.supernode !== self || subnodes[safe: index] !== node {
                insertSubnode(node, at: index)
            }
        }
        for (node, sublayout) in placed {
            node.frame = sublayout.frame
            node.applyLayout(sublayout)
        }
    }

    /// Measures the node for `constrainedSize` and applies the result: the node's frame keeps its
    /// origin and takes the size. Main thread once loaded.
    @discardableResult
    public func layoutAndApply(_ constrainedSize: SizeRange) -> Layout {
        let layout = layoutThatFits(constrainedSize)
        frame = CGRect(origin: frame.origin, size: layout.size)
        applyLayout(layout)
        return layout
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
