import Foundation
import Synchronization

extension DisplayNode {
    // MARK: Configuration (any thread)

    /// Whether the node draws on a display worker (true, the default) or on the main thread.
    public var displaysAsynchronously: Bool {
        get { state.withLock { $0.displaysAsynchronously } }
        set { state.withLock { $0.displaysAsynchronously = newValue } }
    }

    /// Whether a display of this node is known to take long (hundreds of milliseconds and more:
    /// an image of more than `ImageDecoder.longDecodePixels`, say). Such displays run in the long
    /// lane (`DisplayQueue.long`), a single worker of their own, so however many of them wait,
    /// they never hold more than one thread and the ordinary displays keep landing on the pool.
    /// A node that rasterizes its subtree displays in the long lane when it or any node under
    /// it expects a long display. Default false; any thread.
    public var expectsLongDisplay: Bool {
        get { state.withLock { $0.expectsLongDisplay } }
        set { state.withLock { $0.expectsLongDisplay = newValue } }
    }

    /// A suspended node does not display; suspending cancels a display in flight (its result never
    /// lands). Resuming displays the node again if it needed it (Texture's preventOrCancelDisplay).
    public var displaySuspended: Bool {
        get { state.withLock { $0.displaySuspended } }
        set {
            let draws = hasOwnDrawing
            let needs = state.withLock { state -> Bool in
                guard state.displaySuspended != newValue else { return false }
                state.displaySuspended = newValue
                if newValue { displaySentinel.add(1, ordering: .acquiringAndReleasing) }
                return !newValue && (state.needsDisplay || draws)
            }
            if needs { setNeedsDisplay() }
        }
    }

    /// Suspends or resumes display of the node and its whole subtree.
    public func recursivelySetDisplaySuspended(_ suspended: Bool) {
        displaySuspended = suspended
        for subnode in subnodes { subnode.recursivelySetDisplaySuspended(suspended) }
    }

    /// A container groups the displays of its subtree in one transaction, so they appear in one
    /// frame (cells, and nodes that rasterize their subtree, are containers).
    public var isTransactionContainer: Bool {
        get { state.withLock { $0.isTransactionContainer } }
        set { state.withLock { $0.isTransactionContainer = newValue } }
    }

    /// Asks for new contents: the node is displayed at the next commit (main thread), its drawing
    /// running on a worker. Any thread. A node that is not loaded displays when it loads.
    public func setNeedsDisplay() {
        // Inside a rasterized subtree, the rasterizing ancestor draws this node.
        if let rasterizer = rasterizingAncestor {
            rasterizer.setNeedsDisplay()
            return
        }
        state.withLock { $0.needsDisplay = true }
        DisplayScheduler.shared.schedule(self)
    }

    /// Calls `body` with every node below this one, parents first.
    func forEachDescendant(_ body: (DisplayNode) -> Void) {
        for subnode in subnodes {
            body(subnode)
            subnode.forEachDescendant(body)
        }
    }

    /// The nearest ancestor that rasterizes its subtree, if any.
    var rasterizingAncestor: DisplayNode? {
        var node = supernode
        while let current = node {
            if current.rasterizesSubtree { return current }
            node = current.supernode
        }
        return nil
    }

    /// The node's name in traces: its `name` (else its type), after the path from the nearest
    /// ancestor that rasterizes or is a transaction container, when it has one: the card a node
    /// belongs to ("Ocean Cove/photo", "Ocean Cove/favourite/ImageNode"). Any thread; read only
    /// while tracing.
    var traceLabel: String {
        func label(_ node: DisplayNode) -> String { node.name ?? String(describing: type(of: node)) }
        var path = [label(self)]
        var node = supernode
        while let current = node {
            path.append(label(current))
            if current.rasterizesSubtree || current.isTransactionContainer {
                return path.reversed().joined(separator: "/")
            }
            node = current.supernode
        }
        return path[0]
    }

    /// Makes work in flight stale: its result is dropped and its `isCancelled` turns true. Any thread.
    public func cancelDisplay() {
        displaySentinel.add(1, ordering: .acquiringAndReleasing)
    }

    // MARK: The display itself (main thread)

    /// The container whose transaction this node's display joins: the nearest container among the
    /// node and its ancestors, else the node itself.
    var transactionContainer: DisplayNode {
        var node: DisplayNode? = self
        while let current = node {
            if current.isTransactionContainer { return current }
            node = current.supernode
        }
        return self
    }

    /// The container's open transaction for this turn (a new one once the last was committed).
    @MainActor
    func openTransaction(group: TransactionGroup) -> AsyncTransaction {
        if let current = state.withLock({ $0.transaction }), current.state == .open { return current }
        let transaction = AsyncTransaction(group: group)
        transaction.completionBlock = { [weak self] _, cancelled in
            if !cancelled { self?.hierarchyDisplayDidFinish() }
        }
        state.withLock { $0.transaction = transaction }
        return transaction
    }

    /// Displays the node now: snapshot on the main thread, draw on a worker (or here), set contents
    /// at the container's commit if nothing made the display stale meanwhile.
    @MainActor
    func display(group: TransactionGroup, scale: CGFloat) {
        let sentinel = state.withLock { state -> UInt64? in
            guard state.needsDisplay, !state.displaySuspended else { return nil }
            state.needsDisplay = false
            return displaySentinel.add(1, ordering: .acquiringAndReleasing).newValue
        }
        guard let sentinel, let layer = layerIfLoaded else { return }
        // Nothing of its own to draw: no bitmap (the compositor draws background and border).
        guard let captured = rasterizesSubtree ? RasterizedSubtree(capturing: self).drawing : captureOwnDrawing() else {
            layer.contents = nil
            displayDidLand(hadContents: false)
            return
        }
        if layer.contents == nil { showPlaceholderIfNeeded() }
        let size = bounds.size
        // An opaque node's bitmap is opaque: a rasterized subtree starts from the fill; any other
        // drawing is flattened over it (one pass, on the worker).
        let fill = rasterizesSubtree ? nil : opaqueFill
        let drawing = fill.map { FlattenedDrawing(captured, over: $0) } ?? captured
        let nodeType = type(of: self)  // named in a trace only: describing a type is slow
        willDisplay()
        if rasterizesSubtree { forEachDescendant { $0.willDisplay() } }
        let isStale: @Sendable () -> Bool = { [weak self] in
            guard let self else { return true }
            return self.displaySentinel.load(ordering: .acquiring) != sentinel
        }
        let label = Tracer.shared.isRecording ? traceLabel : nil
        if !displaysAsynchronously {
            let bitmap = Tracer.shared.measure("draw \(label ?? String(describing: nodeType))", category: "display") {
                drawing.display(size: size, scale: scale, isCancelled: isStale)
            }
            land(bitmap, on: layer)
            return
        }
        let container = transactionContainer
        let transaction = container.openTransaction(group: group)
        var long = expectsLongDisplay
        if rasterizesSubtree, !long { forEachDescendant { if $0.expectsLongDisplay { long = true } } }
        transaction.addOperation(
            priority: DisplayScheduler.shared.priority(of: self), queue: long ? .long : nil,
            { isCancelled in
                let cancelled: @Sendable () -> Bool = { isCancelled() || isStale() }
                return DisplayScheduler.shared.runDisplay(isCancelled: cancelled) {
                    Tracer.shared.measure("draw \(label ?? String(describing: nodeType))", category: "display") {
                        drawing.display(size: size, scale: scale, isCancelled: cancelled)
                    }
                }
            }
        ) { [weak self] bitmap, cancelled in
            guard let self, !cancelled, !isStale(), let layer = self.layerIfLoaded else {
                DisplayScheduler.shared.recordRaster(landed: false)
                return
            }
            DisplayScheduler.shared.recordRaster(landed: true)
            self.land(bitmap, on: layer)
        }
    }

    /// Sets a display's result as the layer's contents, then runs `didDisplay()` and lets the
    /// placeholders know.
    @MainActor
    private func land(_ bitmap: Bitmap?, on layer: Layer) {
        let hadContents = layer.contents != nil
        layer.contents = bitmap
        didDisplay()
        // The subnodes drew into this bitmap: their hooks run too (an ImageNode publishes its
        // error and scale factor there).
        if rasterizesSubtree { forEachDescendant { $0.didDisplay() } }
        displayDidLand(hadContents: hadContents)
    }
}

extension DisplayNode {
    /// Displays every node of the subtree that has not displayed, now, instead of at the next
    /// commit; when `synchronously`, the main thread also waits for those displays (which run on
    /// the workers, concurrently) and lands their contents at once, asking the backend to upload
    /// them this frame, so the subtree is on screen whole in the very next frame (Texture's
    /// `recursivelyEnsureDisplaySynchronously:`, used for cells that never show placeholders).
    /// Loads the node. Main thread; does nothing until the scheduler is installed.
    @MainActor
    public func recursivelyEnsureDisplaySynchronously(_ synchronously: Bool) {
        _ = layer
        guard let (group, scale) = DisplayScheduler.shared.installation else { return }
        var nodes: [DisplayNode] = []
        collectUndisplayed(into: &nodes)
        var transactions: [AsyncTransaction] = []
        for node in nodes {
            node.state.withLock { $0.needsDisplay = true }
            node.display(group: group, scale: scale)
            if let transaction = node.transactionContainer.state.withLock({ $0.transaction }),
                transaction.state != .completed, !transactions.contains(where: { $0 === transaction })
            {
                transactions.append(transaction)
            }
        }
        guard synchronously, !transactions.isEmpty else { return }
        var layers: [Layer] = []
        layerIfLoaded?.forEachLayer { layers.append($0) }
        for layer in layers { layer.prefersImmediateUpload = true }
        for transaction in transactions {
            transaction.waitUntilOperationsFinish()
            group.completeNow(transaction)
        }
        for layer in layers { layer.prefersImmediateUpload = false }
    }

    /// The loaded nodes of the subtree with contents of their own still to come.
    private func collectUndisplayed(into nodes: inout [DisplayNode]) {
        guard isNodeLoaded else { return }
        let (displayed, rasterizes, suspended) = state.withLock { ($0.hasDisplayed, $0.rasterizesSubtree, $0.displaySuspended) }
        if hasOwnDrawing && !suspended && (!displayed || state.withLock({ $0.needsDisplay })) { nodes.append(self) }
        guard !rasterizes else { return }
        for subnode in subnodes { subnode.collectUndisplayed(into: &nodes) }
    }
}
