import Foundation

extension DisplayNode {
    /// A placeholder on screen: its layer, and whether it is on its way out (fading, or waiting
    /// for the contents to be on screen before it fades).
    struct Placeholder {
        let layer: Layer
        var isLeaving = false
    }

    /// The placeholder colour nodes start with: the tutorial's grey 0.85.
    public static let defaultPlaceholderColor = Color(white: 0.85)

    // MARK: Configuration (any thread)

    /// Whether the node shows a placeholder (its `placeholderColor` with its `placeholderImage()`
    /// centred) from the moment its layer loads until it and its subnodes have displayed and their
    /// contents are on screen. Set it before the node loads.
    public var placeholderEnabled: Bool {
        get { state.withLock { $0.placeholderEnabled } }
        set { state.withLock { $0.placeholderEnabled = newValue } }
    }

    /// The placeholder's fill (grey 0.85 by default; nil: no fill, only the image).
    public var placeholderColor: Color? {
        get { state.withLock { $0.placeholderColor } }
        set { state.withLock { $0.placeholderColor = newValue } }
    }

    /// Seconds the placeholder takes to fade out once the contents are on screen (0: it goes at
    /// once, as Texture's default).
    public var placeholderFadeDuration: TimeInterval {
        get { state.withLock { $0.placeholderFadeDuration } }
        set { state.withLock { $0.placeholderFadeDuration = max(0, newValue.isFinite ? newValue : 0) } }
    }

    /// Seconds new contents take to fade in where the node had none (0, the default: no fade;
    /// the tutorial's cards use 0.6). Over a placeholder the fade is the placeholder fading out
    /// on top of the contents, which for opaque contents looks the same and never shows what is
    /// behind the card; without one, the node's layer fades in as a whole.
    public var contentsFadeDuration: TimeInterval {
        get { state.withLock { $0.contentsFadeDuration } }
        set { state.withLock { $0.contentsFadeDuration = max(0, newValue.isFinite ? newValue : 0) } }
    }

    /// Whether the placeholder is on screen (main thread; tests and overlays), fading out or not.
    @MainActor
    public var isShowingPlaceholder: Bool { state.withLock { $0.placeholder } != nil }

    /// Whether the placeholder is on screen and not yet on its way out: the node's contents are
    /// not there yet (once they are, the placeholder fades out over them).
    @MainActor
    public var isPlaceholderCovering: Bool { state.withLock { $0.placeholder.map { !$0.isLeaving } ?? false } }

    // MARK: Displayed state

    /// Whether the node and every subnode with a layer has displayed (a node that draws nothing
    /// counts as displayed; a rasterizing node answers for its subtree).
    public var isSubtreeDisplayed: Bool {
        let (displayed, rasterizes) = state.withLock { ($0.hasDisplayed, $0.rasterizesSubtree) }
        guard displayed || !hasOwnDrawing else { return false }
        return rasterizes || subnodes.allSatisfy(\.isSubtreeDisplayed)
    }

    /// Whether the node or an ancestor never shows placeholders.
    var placeholdersSuppressed: Bool {
        var node: DisplayNode? = self
        while let current = node {
            if current.suppressesPlaceholders { return true }
            node = current.supernode
        }
        return false
    }

    // MARK: Main thread

    /// Puts the placeholder on top of the loaded layer if the node wants one and has not displayed;
    /// one on its way out stays and covers the node again.
    @MainActor
    func showPlaceholderIfNeeded() {
        guard let layer = layerIfLoaded else { return }
        let (enabled, current, color) = state.withLock { ($0.placeholderEnabled, $0.placeholder, $0.placeholderColor) }
        if let current, !current.isLeaving { return }  // it covers the node already
        // A node that displays synchronously has its contents before the frame is drawn.
        guard enabled, displaysAsynchronously, !isSubtreeDisplayed, !placeholdersSuppressed else { return }
        if let current {
            // Leaving over contents that are gone again: its fade (or the wait for it) ends here.
            state.withLock { $0.placeholder?.isLeaving = false }
            DisplayScheduler.shared.animator?.removeAnimation(of: current.layer, .alpha)
            current.layer.alpha = 1
            return
        }
        let placeholder = Layer(frame: CGRect(origin: .zero, size: layer.frame.size))
        placeholder.name = "placeholder"
        placeholder.backgroundColor = color
        placeholder.cornerRadius = layer.cornerRadius
        if let image = placeholderImage() {
            let imageLayer = Layer()
            imageLayer.name = "placeholder image"
            imageLayer.contents = image
            placeholder.addSublayer(imageLayer)
        }
        state.withLock { $0.placeholder = Placeholder(layer: placeholder) }
        layer.addSublayer(placeholder)
        layoutPlaceholder()
    }

    /// Fits the placeholder to the layer's bounds, its image centred on whole points.
    @MainActor
    func layoutPlaceholder() {
        guard let placeholder = state.withLock({ $0.placeholder?.layer }), let layer = layerIfLoaded else { return }
        let size = layer.frame.size
        placeholder.frame = CGRect(origin: .zero, size: size)
        if let imageLayer = placeholder.sublayers.first, let image = imageLayer.contents {
            let imageSize = image.size
            imageLayer.frame = CGRect(
                x: ((size.width - imageSize.width) / 2).rounded(),
                y: ((size.height - imageSize.height) / 2).rounded(),
                width: imageSize.width, height: imageSize.height)
        }
    }

    /// New contents landed on the node's layer (or it displayed with nothing to draw): records it,
    /// starts the contents fade where it applies, and lets the placeholders of the node and its
    /// ancestors go once their subtrees are displayed and on screen.
    @MainActor
    func displayDidLand(hadContents: Bool) {
        let (fade, hasPlaceholder) = state.withLock { state -> (TimeInterval, Bool) in
            state.hasDisplayed = true
            return (state.contentsFadeDuration, state.placeholder != nil)
        }
        if fade > 0, !hadContents, !hasPlaceholder, let layer = layerIfLoaded, layer.contents != nil,
            let animator = DisplayScheduler.shared.animator
        {
            layer.fadeOpacity = 0
            animator.whenPresented(layer) { [weak layer] in
                guard let layer else { return }
                animator.animate(layer, .fadeOpacity, from: 0, to: 1, duration: fade)
            }
        }
        var node: DisplayNode? = self
        while let current = node {
            current.hidePlaceholderIfDisplayed()
            node = current.supernode
        }
    }

    /// Fades the placeholder out (then removes it) once the subtree has displayed and its contents
    /// are on screen. `showPlaceholderIfNeeded` may bring it back meanwhile: each step goes on only
    /// while the placeholder is still leaving.
    @MainActor
    func hidePlaceholderIfDisplayed() {
        guard let current = state.withLock({ $0.placeholder }), !current.isLeaving,
            isSubtreeDisplayed, let layer = layerIfLoaded
        else { return }
        let duration = state.withLock { state -> TimeInterval in
            state.placeholder?.isLeaving = true
            return max(state.placeholderFadeDuration, state.contentsFadeDuration)
        }
        let placeholder = current.layer
        let remove: @MainActor () -> Void = { [weak self, weak placeholder] in
            guard let self, let placeholder, self.isLeaving(placeholder) else { return }
            placeholder.removeFromSuperlayer()
            self.state.withLock { $0.placeholder = nil }
        }
        guard let animator = DisplayScheduler.shared.animator else { return remove() }
        animator.whenPresented(layer) { [weak self, weak placeholder] in
            // A fade started by a later departure (after it was brought back) is already under way.
            guard let self, let placeholder, self.isLeaving(placeholder),
                !animator.isAnimating(placeholder, .alpha)
            else { return }
            animator.animate(placeholder, .alpha, from: 1, to: 0, duration: duration) { _ in remove() }
        }
    }

    /// Whether `placeholder` is the node's placeholder and on its way out.
    @MainActor
    private func isLeaving(_ placeholder: Layer) -> Bool {
        state.withLock { $0.placeholder.map { $0.layer === placeholder && $0.isLeaving } ?? false }
    }

    /// Drops the node's contents (e.g. when it leaves the display range): the layer shows its
    /// background again, the placeholder if enabled, and the node displays anew when asked.
    @MainActor
    public func clearContents() {
        cancelDisplay()
        state.withLock { state in
            state.hasDisplayed = false
            state.needsDisplay = true
        }
        layerIfLoaded?.contents = nil
        showPlaceholderIfNeeded()
    }
}
