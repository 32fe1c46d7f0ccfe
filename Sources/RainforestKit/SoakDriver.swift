import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

/// Drives a headless viewer as a restless user would, one random action at a time, each spread
/// over the frames it takes (paced at 60 Hz), counting frames and dropped frames (presented late).
@MainActor
struct SoakDriver {
    /// What one action does.
    enum Action: CaseIterable {
        case wheel, fling, drag, page, jump, home, end, resize, mode, overlay, favourite, select, reload
    }

    /// The least time `settleAtTop` takes: its frames (at 60 Hz), the memory trim's quiet time
    /// after the last of them, and half a second for the visible cards to come back. It takes
    /// longer when the overlay textures the frames draw keep changing: the trim waits for quiet.
    var minimumSettleTime: TimeInterval {
        Double(10 + settleFrames) / 60 + app.memoryTrimQuietTime + 0.5
    }
    /// The frames of rest before memory is read: long enough for the release and upload queues to
    /// drain, and for the compositor to evict the textures the last action's frames used and
    /// these do not (rounded-clip targets, masks, overlay textures: after `evictionAge` frames).
    private var settleFrames: Int { max(90, app.compositor.evictionAge + 10) }
    static let defaultSize = Session.defaultSize.cgSize
    /// The window sizes a resize picks from.
    static let widths = 340...1600
    static let heights = 200...1000

    let app: Application
    let viewer: Viewer
    /// Called after every turn (the watchdog's heartbeat).
    let stamp: () -> Void
    /// The longest `settleAtTop` waits for the visible cards, and then for the memory trim (the
    /// soak's `--timeout`, 30 s at least).
    var settleTimeout: TimeInterval = 30

    func randomAction(using random: inout SeededRandom) -> Action {
        // Scrolling is what users do most.
        let weighted: [(Action, Int)] = [
            (.wheel, 6), (.fling, 5), (.drag, 3), (.page, 3), (.jump, 2), (.home, 1), (.end, 1),
            (.resize, 1), (.mode, 2), (.overlay, 2), (.favourite, 2), (.select, 1), (.reload, 1),
        ]
        var pick = Int.random(in: 0..<weighted.map(\.1).reduce(0, +), using: &random)
        for (action, weight) in weighted {
            if pick < weight { return action }
            pick -= weight
        }
        return .wheel
    }

    /// Performs an action and the frames that follow it; returns the frames and the dropped ones.
    func perform(_ action: Action, using random: inout SeededRandom) -> (frames: Int, dropped: Int) {
        var counter = FrameCounter()
        let centre = CGPoint(x: app.size.width / 2, y: app.size.height / 2)
        func send(_ event: InputEvent) { viewer.handle(event, at: MonotonicClock.now()) }
        switch action {
        case .wheel:
            let down: CGFloat = Bool.random(using: &random) ? 1 : -1
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                send(.wheel(WheelEvent(kind: .clicks, deltaY: down, location: centre, time: MonotonicClock.now())))
                counter.run(frames: 2, self)
            }
            counter.run(frames: 20, self)
        case .fling:
            // Precise deltas (a trackpad), then nothing: the physics flings on.
            let step = CGFloat.random(in: 15...80, using: &random) * (Bool.random(using: &random) ? 1 : -1)
            for _ in 0..<Int.random(in: 4...12, using: &random) {
                send(.wheel(WheelEvent(kind: .precise, deltaY: step, location: centre, time: MonotonicClock.now())))
                counter.run(frames: 1, self)
            }
            counter.run(frames: 90, self)
        case .drag:
            var point = centre
            send(.pointerDown(.left, point, clickCount: 1))
            let dy = CGFloat.random(in: -40...40, using: &random)
            for _ in 0..<Int.random(in: 5...20, using: &random) {
                point.y += dy
                send(.pointerMoved(point))
                counter.run(frames: 1, self)
            }
            send(.pointerUp(.left, point))
            counter.run(frames: 60, self)
        case .page:
            send(.key(KeyEvent(key: Bool.random(using: &random) ? .pageDown : .pageUp, time: MonotonicClock.now())))
            counter.run(frames: 25, self)
        case .jump:
            viewer.scroll(to: CGFloat.random(in: 0...max(1, viewer.collection.maximumContentOffset), using: &random))
            counter.run(frames: 40, self)
        case .home, .end:
            send(.key(KeyEvent(key: action == .home ? .home : .end, time: MonotonicClock.now())))
            counter.run(frames: 40, self)
        case .resize:
            let size = CGSize(
                width: CGFloat(Int.random(in: Self.widths, using: &random)),
                height: CGFloat(Int.random(in: Self.heights, using: &random)))
            resize(to: size)
            counter.run(frames: 30, self)
        case .mode:
            // Slow draw now and then, and never for long: each mode change reloads the cards.
            viewer.mode = ViewerMode(
                mainThread: Int.random(in: 0..<4, using: &random) == 0,
                popcorn: Int.random(in: 0..<4, using: &random) == 0,
                fadesIn: Bool.random(using: &random),
                slowDraw: Int.random(in: 0..<8, using: &random) == 0)
            counter.run(frames: 60, self)
        case .overlay:
            switch Int.random(in: 0..<5, using: &random) {
            case 0: app.showsHitTestSlop.toggle()
            case 1: app.showsRanges.toggle()
            case 2: app.showsImageScaling.toggle()
            case 3: app.showsHelp.toggle()
            default: app.showsFPS.toggle()
            }
            counter.run(frames: 15, self)
        case .favourite, .select:
            if let index = viewer.visibleIndices.randomElement(using: &random), let card = viewer.card(at: index),
                card.isNodeLoaded
            {
                let local =
                    action == .favourite ? CGPoint(x: 12, y: 12) : CGPoint(x: card.frame.width / 2, y: card.frame.height - 40)
                let point = (action == .favourite ? card.favourite : card).convert(local, to: nil)
                send(.pointerDown(.left, point, clickCount: 1))
                counter.run(frames: 2, self)
                send(.pointerUp(.left, point))
            }
            counter.run(frames: 15, self)
        case .reload:
            viewer.collection.reloadData()
            counter.run(frames: 40, self)
        }
        return (counter.frames, counter.dropped)
    }

    /// The tour that opens the first minute: in each mode, the actions listed, with every overlay
    /// showing, in the largest window a resize can pick; between them, every action and every
    /// mode the random minutes can come to.
    nonisolated static let tour: [(mode: ViewerMode, actions: [Action])] = {
        let scrolling: [Action] = [.wheel, .fling, .drag, .page, .favourite, .select, .jump, .end, .home]
        return [
            ViewerMode(popcorn: true), ViewerMode(mainThread: true, popcorn: true), ViewerMode(mainThread: true),
            ViewerMode(fadesIn: false, slowDraw: true),
        ].map { ($0, scrolling) }
            + [(ViewerMode(), scrolling + [.overlay, .resize, .reload, .mode])]
    }()

    /// The tour as steps: each action, with the mode to switch to where a leg begins.
    typealias Tour = IndexingIterator<[(mode: ViewerMode?, action: Action)]>

    /// Starts the tour: the largest window a resize can pick, every overlay on. The first
    /// minute is the baseline the later ones are compared with, so it must have met the first
    /// use of everything: the caches, pools and compiled shaders that the graphics driver and the
    /// libraries keep for each kind of work, which a random first minute may not have asked for.
    func startTour() -> Tour {
        resize(to: CGSize(width: CGFloat(Self.widths.upperBound), height: CGFloat(Self.heights.upperBound)))
        app.showsHitTestSlop = true
        app.showsRanges = true
        app.showsImageScaling = true
        app.showsHelp = true
        app.showsFPS = true
        return Self.tour.flatMap { leg in leg.actions.enumerated().map { ($0.offset == 0 ? leg.mode : nil, $0.element) } }
            .makeIterator()
    }

    /// The tour's next action (switching the mode where a leg begins) while it lasts, then a
    /// random one.
    func nextAction(tour: inout Tour?, using random: inout SeededRandom) -> Action {
        guard let step = tour?.next() else { return randomAction(using: &random) }
        if let mode = step.mode { viewer.mode = mode }
        return step.action
    }

    /// Back to the default size, mode and overlays at the top of the collection (just scrolled down
    /// a point, so the ranges lead downwards as after start), then turns until every visible card
    /// is on screen, the release and upload queues have had time to drain, textures no frame uses
    /// are evicted and the application has handed back the memory the work freed.
    func settleAtTop() -> (frames: Int, dropped: Int) {
        var counter = FrameCounter()
        viewer.mode = ViewerMode()
        app.showsHitTestSlop = false
        app.showsRanges = false
        app.showsImageScaling = false
        app.showsHelp = false
        app.showsFPS = true
        if app.size != Self.defaultSize { resize(to: Self.defaultSize) }
        viewer.scroll(to: 0)
        counter.run(frames: 10, self)
        viewer.scroll(to: 1)
        let deadline = MonotonicClock.now() + settleTimeout
        while MonotonicClock.now() < deadline && !viewer.isSettled { counter.run(frames: 1, self) }
        counter.run(frames: settleFrames, self)
        // At rest the application hands back the memory the work freed (after a quiet second):
        // wait for that, as a user who stops scrolling would.
        let trimDeadline = MonotonicClock.now() + settleTimeout
        while MonotonicClock.now() < trimDeadline && app.isMemoryTrimDue { counter.run(frames: 1, self) }
        app.waitForMemoryTrims()
        return (counter.frames, counter.dropped)
    }

    /// The state an action left: window size, mode, offset.
    func describe() -> String {
        "\(Int(app.size.width))x\(Int(app.size.height)), \(viewer.mode), offset \(Int(viewer.collection.contentOffset))"
    }

    private func resize(to size: CGSize) {
        app.setSize(size)
        viewer.handle(.resized(app.size, scale: app.scale), at: MonotonicClock.now())
    }

    /// Counts the frames an action takes.
    struct FrameCounter {
        var frames = 0
        var dropped = 0

        @MainActor
        mutating func run(frames count: Int, _ driver: SoakDriver) {
            for _ in 0..<count {
                driver.app.runTurn()
                driver.stamp()
                frames += 1
                if driver.app.runLoop.statistics.recent(1).first?.isLate == true { dropped += 1 }
                driver.app.runLoop.setNeedsFrame()
                driver.app.runLoop.waitForNextFrame()
            }
        }
    }
}
