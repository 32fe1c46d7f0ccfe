import Canopy
import CanopyGraphics
import Foundation

/// The debug overlays: which are on, what they inspect and show, and drawing them over the layer
/// tree in each frame's compositing. Each switch asks for a frame when set, so the change shows.
extension Application {
    /// The overlays' switches and what they draw with (the `Application` stores it; an extension
    /// cannot).
    struct OverlayState {
        var showsFPS = true
        var showsHelp = false
        var showsHitTestSlop = false
        var showsImageScaling = false
        var showsRanges = false
        var rootNode: DisplayNode?
        var rangeSource: (@MainActor () -> RangeOverlaySnapshot?)?
        var helpEntries: [HelpEntry] = []
        var statusLines: () -> [String] = { [] }
        /// The overlays' text, drawn once and kept while shown.
        let textCache: TextCache
        var fps = FPSOverlay()

        init(textCache: TextCache) {
            self.textCache = textCache
        }
    }

    public var showsFPS: Bool {
        get { overlays.showsFPS }
        set { overlays.showsFPS = newValue; runLoop.setNeedsFrame() }
    }
    public var showsHelp: Bool {
        get { overlays.showsHelp }
        set { overlays.showsHelp = newValue; runLoop.setNeedsFrame() }
    }
    /// Draws the hit-test overlay of `overlayRootNode`'s controls over the layer tree, under the FPS
    /// and help overlays (Texture's enableHitTestDebug; the app binds it to a key, H).
    public var showsHitTestSlop: Bool {
        get { overlays.showsHitTestSlop }
        set { overlays.showsHitTestSlop = newValue; runLoop.setNeedsFrame() }
    }
    /// The node tree the debug overlays inspect, placed where its layer is drawn.
    public var overlayRootNode: DisplayNode? {
        get { overlays.rootNode }
        set { overlays.rootNode = newValue; runLoop.setNeedsFrame() }
    }
    /// Draws the image-scaling labels of `overlayRootNode`'s image nodes (Texture's image scaling
    /// overlay: red "%.2fx", image pixels over drawn pixels, at each node's bottom right).
    public var showsImageScaling: Bool {
        get { overlays.showsImageScaling }
        set { overlays.showsImageScaling = newValue; runLoop.setNeedsFrame() }
    }
    /// Draws the range overlay of `rangeOverlaySource`'s snapshot over the layer tree, under the FPS
    /// and help overlays (Texture's range debug overlay): on-screen cells tinted by state and a
    /// panel of the viewport and the display and preload ranges over the content.
    public var showsRanges: Bool {
        get { overlays.showsRanges }
        set { overlays.showsRanges = newValue; runLoop.setNeedsFrame() }
    }
    /// The collection's state for the range overlay, asked each frame it is shown; nil draws nothing.
    public var rangeOverlaySource: (@MainActor () -> RangeOverlaySnapshot?)? {
        get { overlays.rangeSource }
        set { overlays.rangeSource = newValue }
    }
    public var helpEntries: [HelpEntry] {
        get { overlays.helpEntries }
        set { overlays.helpEntries = newValue }
    }
    /// Lines the app adds to the FPS overlay (its modes).
    public var statusLines: () -> [String] {
        get { overlays.statusLines }
        set { overlays.statusLines = newValue }
    }

    /// Draws the overlays that are on over the layer tree just drawn, in `options.overlayFont`:
    /// image scaling, hit-test slop and ranges first, then the FPS and help panels on top.
    func drawOverlays(_ turn: FrameLoop.Turn) {
        let textCache = overlays.textCache
        if showsImageScaling, let root = overlayRootNode {
            compositor.drawImageScalingLabels(
                ImageScalingOverlay.labels(in: root), text: textCache,
                font: Font(family: options.overlayFont.family, size: 12, weight: .bold))
        }
        if showsHitTestSlop, let root = overlayRootNode {
            compositor.drawHitTestSlop(HitTestSlopOverlay.regions(in: root))
        }
        if showsRanges, let snapshot = rangeOverlaySource?() {
            compositor.drawRangeOverlay(snapshot, text: textCache, font: options.overlayFont)
        }
        let font = options.overlayFont
        if showsFPS {
            let memory = String(
                format: "textures %.1f MB · %@ · %@", Double(compositor.textureBytes) / 1_048_576,
                rendererName, videoDriver)
            // Read before the FPS overlay (part of `overlays`) is drawn, which changes it.
            let lines = statusLines() + [memory]
            overlays.fps.draw(
                compositor: compositor, text: textCache, font: font, at: CGPoint(x: 10, y: 10),
                statistics: runLoop.statistics, now: turn.time, idle: runLoop.wasIdle && turn.delta > 0.1,
                extraLines: lines)
            // The figures refresh while frames come. When this is the last frame of a burst
            // (nobody wants another), ask for one more a moment later, to show the settled
            // figures before the loop sleeps.
            if !runLoop.needsFrame && !runLoop.wasIdle {
                runLoop.setNeedsFrame(at: turn.time + 0.3)
            }
        }
        if showsHelp {
            HelpOverlay.draw(compositor: compositor, text: textCache, font: font, entries: helpEntries, in: size)
        }
    }
}
