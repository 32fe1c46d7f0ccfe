import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import Canopy

final class ButtonNodeTests: XCTestCase {
    private static let fonts = TestFonts.registry

    private static let wide = SizeRange(min: .zero, max: CGSize(width: 1000, height: 1000))
    private static let icon = Bitmap(width: 20, height: 30, fill: .red)
    private static let otherIcon = Bitmap(width: 12, height: 12, fill: .blue)
    private static let backdrop = Bitmap(width: 4, height: 4, fill: .green)

    override func setUpWithError() throws {
        try MainActor.assumeIsolated { try GraphicsLibrary.initialize() }
        XCTAssertTrue(Self.fonts.families.contains("Lato"), "no Lato in Resources/fonts")
        DisplayScheduler.shared.scale = 1
    }

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
        DisplayScheduler.shared.scale = 1
    }

    // MARK: Helpers

    /// A button measuring its title with the tests' fonts, with a normal title and image if given.
    private static func button(title: String? = "Tap", image: Bitmap? = icon) -> ButtonNode {
        let button = ButtonNode()
        button.titleNode.fonts = fonts
        if let title { button.setTitle(title, for: .normal) }
        button.setImage(image, for: .normal)
        return button
    }

    /// The size the title node takes on its own, unconstrained (what a stack gives it when it fits).
    private static func titleSize(_ button: ButtonNode) -> CGSize {
        button.titleNode.layoutThatFits(
            SizeRange(
                min: .zero,
                max: CGSize(
                    width: CGFloat.infinity,
                    height: .infinity))
        ).size
    }

    /// The shown title's characters.
    private static func shownTitle(_ button: ButtonNode) -> String {
        String(button.titleNode.attributedText.characters)
    }

    private static func ids(_ nodes: [DisplayNode]) -> [ObjectIdentifier] { nodes.map(ObjectIdentifier.init) }

    /// Measures the button in `range` and applies the layout at the origin.
    @discardableResult
    private static func layOut(_ button: ButtonNode, in range: SizeRange = wide) -> Layout {
        button.frame = .zero
        return button.layoutAndApply(range)
    }

    // MARK: Defaults

    func testTheDefaultsAreTexturesAndTheButtonIsEnabled() {
        let button = ButtonNode()
        XCTAssertEqual(button.contentSpacing, 8)
        XCTAssertTrue(button.laysOutHorizontally)
        XCTAssertEqual(button.contentHorizontalAlignment, .middle)
        XCTAssertEqual(button.contentVerticalAlignment, .center)
        XCTAssertEqual(button.contentEdgeInsets, .zero)
        XCTAssertEqual(button.imageAlignment, .beginning)
        XCTAssertTrue(button.isEnabled)
        XCTAssertEqual(button.controlState, .normal)
        XCTAssertTrue(button.automaticallyManagesSubnodes)
        XCTAssertTrue(button.subnodes.isEmpty, "subnodes come with a layout")
        XCTAssertFalse(button.isUserInteractionEnabled, "as every control, input comes with an action")
        for node in [button.titleNode, button.imageNode, button.backgroundImageNode] as [DisplayNode] {
            XCTAssertTrue(node.isLayerBacked)
            XCTAssertFalse(node.isUserInteractionEnabled)
        }
        XCTAssertEqual(button.titleNode.style.flexShrink, 1)
        XCTAssertEqual(button.backgroundImageNode.contentMode, .scaleToFill)
        XCTAssertEqual(button.titleNode.attributedText, AttributedString())
        XCTAssertNil(button.imageNode.image)
    }

    func testSetTitleUsesTheDefaultFontAndBlackUnlessGiven() {
        let button = ButtonNode()
        button.setTitle("Go", for: .normal)
        XCTAssertEqual(
            button.attributedTitle(for: .normal),
            AttributedString("Go", font: TextLayout.defaultFont, color: .black))
        let heavy = Font(family: "Lato", size: 20, weight: .heavy)
        button.setTitle("Stop", font: heavy, color: .red, for: .highlighted)
        XCTAssertEqual(button.attributedTitle(for: .highlighted), AttributedString("Stop", font: heavy, color: .red))
        XCTAssertEqual(button.titleNode.attributedText, button.attributedTitle(for: .normal))
    }

    // MARK: Layout

    func testImageAndTitleSideBySideSpacedAndInset() {
        let button = Self.button()
        button.contentEdgeInsets = EdgeInsets(top: 4, left: 10, bottom: 6, right: 12)
        let title = Self.titleSize(button)
        let height = max(30, title.height)
        let layout = Self.layOut(button)
        XCTAssertEqual(layout.size, CGSize(width: 10 + 20 + 8 + title.width + 12, height: 4 + height + 6))
        XCTAssertEqual(button.frame.size, layout.size)
        XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.imageNode, button.titleNode]))
        XCTAssertEqual(button.imageNode.frame, CGRect(x: 10, y: 4 + (height - 30) / 2, width: 20, height: 30))
        XCTAssertEqual(
            button.titleNode.frame,
            CGRect(
                x: 38, y: 4 + (height - title.height) / 2,
                width: title.width, height: title.height))

        button.contentSpacing = 3
        Self.layOut(button)
        XCTAssertEqual(button.titleNode.frame.minX, 33)
        XCTAssertEqual(button.frame.width, 10 + 20 + 3 + title.width + 12)
    }

    func testVerticalStacksTheImageAboveTheTitleCentredAcross() {
        let button = Self.button()
        button.laysOutHorizontally = false
        button.contentEdgeInsets = EdgeInsets(all: 5)
        let title = Self.titleSize(button)
        let width = max(20, title.width)
        let layout = Self.layOut(button)
        XCTAssertEqual(layout.size, CGSize(width: 5 + width + 5, height: 5 + 30 + 8 + title.height + 5))
        XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.imageNode, button.titleNode]))
        XCTAssertEqual(button.imageNode.frame, CGRect(x: 5 + (width - 20) / 2, y: 5, width: 20, height: 30))
        XCTAssertEqual(
            button.titleNode.frame,
            CGRect(
                x: 5 + (width - title.width) / 2, y: 43,
                width: title.width, height: title.height))
    }

    func testImageAlignmentEndPutsTheImageAfterTheTitle() {
        let button = Self.button()
        button.imageAlignment = .end
        let title = Self.titleSize(button)
        let height = max(30, title.height)
        Self.layOut(button)
        XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.titleNode, button.imageNode]))
        XCTAssertEqual(button.titleNode.frame.origin, CGPoint(x: 0, y: (height - title.height) / 2))
        XCTAssertEqual(button.imageNode.frame, CGRect(x: title.width + 8, y: (height - 30) / 2, width: 20, height: 30))

        button.laysOutHorizontally = false
        Self.layOut(button)
        XCTAssertEqual(button.titleNode.frame.minY, 0)
        XCTAssertEqual(button.imageNode.frame.minY, title.height + 8)
    }

    func testOnlyATitleOrOnlyAnImageIsLaidOutAlone() {
        let titled = Self.button(image: nil)
        titled.contentEdgeInsets = EdgeInsets(top: 2, left: 3, bottom: 4, right: 5)
        let title = Self.titleSize(titled)
        XCTAssertEqual(Self.layOut(titled).size, CGSize(width: 3 + title.width + 5, height: 2 + title.height + 4))
        XCTAssertEqual(Self.ids(titled.subnodes), Self.ids([titled.titleNode]))
        XCTAssertEqual(titled.titleNode.frame, CGRect(x: 3, y: 2, width: title.width, height: title.height))

        let pictured = Self.button(title: nil)
        XCTAssertEqual(Self.layOut(pictured).size, CGSize(width: 20, height: 30))
        XCTAssertEqual(Self.ids(pictured.subnodes), Self.ids([pictured.imageNode]))
        XCTAssertEqual(pictured.imageNode.frame, CGRect(x: 0, y: 0, width: 20, height: 30))

        // An empty title counts as none.
        pictured.setTitle("", for: .normal)
        Self.layOut(pictured)
        XCTAssertEqual(Self.ids(pictured.subnodes), Self.ids([pictured.imageNode]))
    }

    func testTheBackgroundImageCoversTheWholeButtonBehindTheContent() {
        let button = Self.button()
        button.setBackgroundImage(Self.backdrop, for: .normal)
        button.contentEdgeInsets = EdgeInsets(all: 6)
        let layout = Self.layOut(button)
        XCTAssertEqual(
            Self.ids(button.subnodes),
            Self.ids([button.backgroundImageNode, button.imageNode, button.titleNode]))
        XCTAssertEqual(button.backgroundImageNode.frame, CGRect(origin: .zero, size: layout.size))
        XCTAssertEqual(button.imageNode.frame.origin.x, 6)

        // The background alone, and the background leaving.
        button.setTitle("", for: .normal)
        button.setImage(nil, for: .normal)
        XCTAssertEqual(Self.layOut(button).size, CGSize(width: 12, height: 12))
        XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.backgroundImageNode]))
        button.setBackgroundImage(nil, for: .normal)
        button.setTitle("Tap", for: .normal)
        Self.layOut(button)
        XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.titleNode]))
    }

    func testTheAlignmentsPlaceTheContentInALargerButton() {
        let button = Self.button()
        button.contentEdgeInsets = EdgeInsets(top: 2, left: 4, bottom: 6, right: 8)
        let title = Self.titleSize(button)
        let content = 20 + 8 + title.width
        let size = CGSize(width: content + 100, height: max(30, title.height) + 40)
        let exact = SizeRange(exactly: size)

        Self.layOut(button, in: exact)  // centred both ways by default
        XCTAssertEqual(button.imageNode.frame.minX, 4 + (size.width - 12 - content) / 2)
        XCTAssertEqual(button.imageNode.frame.minY, 2 + (size.height - 8 - 30) / 2)

        button.contentHorizontalAlignment = .left
        button.contentVerticalAlignment = .top
        Self.layOut(button, in: exact)
        XCTAssertEqual(button.imageNode.frame.origin, CGPoint(x: 4, y: 2))
        XCTAssertEqual(button.titleNode.frame.origin, CGPoint(x: 32, y: 2))

        button.contentHorizontalAlignment = .right
        button.contentVerticalAlignment = .bottom
        Self.layOut(button, in: exact)
        XCTAssertEqual(button.titleNode.frame.maxX, size.width - 8)
        XCTAssertEqual(button.titleNode.frame.maxY, size.height - 6)
        XCTAssertEqual(button.imageNode.frame.maxY, size.height - 6)

        // Vertically, the horizontal alignment works across and the vertical one along.
        button.laysOutHorizontally = false
        button.contentHorizontalAlignment = .left
        button.contentVerticalAlignment = .bottom
        let tall = SizeRange(exactly: CGSize(width: 300, height: 200))
        Self.layOut(button, in: tall)
        XCTAssertEqual(button.imageNode.frame.origin, CGPoint(x: 4, y: 200 - 6 - title.height - 8 - 30))
        XCTAssertEqual(button.titleNode.frame.origin, CGPoint(x: 4, y: 200 - 6 - title.height))

        // `.none` leaves the stack's defaults: justified to the start, children stretched across.
        button.contentHorizontalAlignment = .none
        button.contentVerticalAlignment = .none
        Self.layOut(button, in: tall)
        XCTAssertEqual(button.imageNode.frame, CGRect(x: 4, y: 2, width: 300 - 12, height: 30))
        XCTAssertEqual(button.titleNode.frame.minY, 2 + 30 + 8)
        XCTAssertEqual(button.titleNode.frame.width, 300 - 12)
    }

    // MARK: Content per state

    func testTheGettersGiveWhatWasSetAndOtherStatesAreIgnored() {
        let button = ButtonNode()
        for (index, state) in ButtonNode.storedStates.enumerated() {
            button.setTitle("title \(index)", for: state)
            button.setImage(Bitmap(width: index + 1, height: 1, fill: .red), for: state)
            button.setBackgroundImage(Bitmap(width: 1, height: index + 1, fill: .red), for: state)
        }
        for (index, state) in ButtonNode.storedStates.enumerated() {
            XCTAssertEqual(button.attributedTitle(for: state).map { String($0.characters) }, "title \(index)")
            XCTAssertEqual(button.image(for: state)?.width, index + 1)
            XCTAssertEqual(button.backgroundImage(for: state)?.height, index + 1)
        }
        // Texture keeps five states: another combination is not stored and reads as normal.
        let other: ControlState = [.disabled, .selected]
        button.setTitle("ignored", for: other)
        button.setImage(Self.otherIcon, for: other)
        XCTAssertEqual(button.attributedTitle(for: other), button.attributedTitle(for: .normal))
        XCTAssertTrue(button.image(for: other) === button.image(for: .normal))
        XCTAssertTrue(button.backgroundImage(for: other) === button.backgroundImage(for: .normal))
        for state in ButtonNode.storedStates {
            XCTAssertNotEqual(button.attributedTitle(for: state).map { String($0.characters) }, "ignored")
        }
        // Nil removes a state's content.
        button.setAttributedTitle(nil, for: .highlighted)
        XCTAssertNil(button.attributedTitle(for: .highlighted))
    }

    func testTheShownContentFallsBackAsTexturesDoes() {
        MainActor.assumeIsolated {
            let states: [ControlState] = [
                .normal, .highlighted, .selected, [.selected, .highlighted], .disabled,
                [.disabled, .highlighted], [.disabled, .selected],
                [.disabled, .selected, .highlighted],
            ]
            /// What the button shows in each of `states`, with titles set for `stored` only.
            func shown(storing stored: [ControlState]) -> [String] {
                let button = ButtonNode()
                for state in stored {
                    button.setTitle(ButtonNodeTests.name(state), for: state)
                }
                return states.map { state in
                    button.isEnabled = !state.contains(.disabled)
                    button.isHighlighted = state.contains(.highlighted)
                    button.isSelected = state.contains(.selected)
                    XCTAssertEqual(button.controlState, state)
                    return ButtonNodeTests.shownTitle(button)
                }
            }
            // Normal only: every state shows it.
            XCTAssertEqual(shown(storing: [.normal]), Array(repeating: "normal", count: 8))
            // Every state: each shows its own; the disabled content wins over everything.
            XCTAssertEqual(
                shown(storing: ButtonNode.storedStates),
                [
                    "normal", "highlighted", "selected", "selected+highlighted", "disabled",
                    "disabled", "disabled", "disabled",
                ])
            // No selected-highlighted content: highlighted before selected.
            XCTAssertEqual(
                shown(storing: [.normal, .highlighted, .selected]),
                [
                    "normal", "highlighted", "selected", "highlighted", "normal",
                    "highlighted", "selected", "highlighted",
                ])
            // Only selected: highlighted falls back to normal, selected+highlighted to selected.
            XCTAssertEqual(
                shown(storing: [.normal, .selected]),
                [
                    "normal", "normal", "selected", "selected", "normal", "normal", "selected", "selected",
                ])
            // Without a normal title, states without their own show none.
            XCTAssertEqual(
                shown(storing: [.highlighted]),
                [
                    "", "highlighted", "", "highlighted", "", "highlighted", "", "highlighted",
                ])
        }
    }

    private static func name(_ state: ControlState) -> String {
        switch state {
        case .normal: "normal"
        case .highlighted: "highlighted"
        case .selected: "selected"
        case [.selected, .highlighted]: "selected+highlighted"
        case .disabled: "disabled"
        default: "?"
        }
    }

    func testImagesAndBackgroundImagesFollowTheSameRules() {
        MainActor.assumeIsolated {
            let button = ButtonNode()
            button.setImage(Self.icon, for: .normal)
            button.setImage(Self.otherIcon, for: .selected)
            button.setBackgroundImage(Self.backdrop, for: .highlighted)
            XCTAssertTrue(button.imageNode.image === Self.icon)
            XCTAssertNil(button.backgroundImageNode.image)
            button.isHighlighted = true
            XCTAssertTrue(button.imageNode.image === Self.icon, "no highlighted image: the normal one")
            XCTAssertTrue(button.backgroundImageNode.image === Self.backdrop)
            button.isSelected = true
            XCTAssertTrue(button.imageNode.image === Self.otherIcon, "selected+highlighted falls back to selected")
            XCTAssertTrue(button.backgroundImageNode.image === Self.backdrop, "... after highlighted")
            button.isHighlighted = false
            XCTAssertNil(button.backgroundImageNode.image)
            button.setImage(nil, for: .selected)
            XCTAssertTrue(button.imageNode.image === Self.icon, "removing the shown content shows the fallback")
        }
    }

    func testADisabledButtonShowsItsDisabledContent() {
        MainActor.assumeIsolated {
            let button = Self.button()
            button.setTitle("Off", for: .disabled)
            button.setImage(Self.otherIcon, for: .disabled)
            button.setBackgroundImage(Self.backdrop, for: .disabled)
            Self.layOut(button)
            XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.imageNode, button.titleNode]))

            button.isEnabled = false
            XCTAssertEqual(Self.shownTitle(button), "Off")
            XCTAssertTrue(button.imageNode.image === Self.otherIcon)
            XCTAssertTrue(button.backgroundImageNode.image === Self.backdrop)
            XCTAssertEqual(
                Self.ids(button.subnodes),
                Self.ids([button.backgroundImageNode, button.imageNode, button.titleNode]),
                "the disabled background joined the layout")
            XCTAssertEqual(button.imageNode.frame.size, CGSize(width: 12, height: 12))

            button.isEnabled = true
            XCTAssertEqual(Self.shownTitle(button), "Tap")
            XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.imageNode, button.titleNode]))
        }
    }

    // MARK: State changes

    func testAStateChangeSwapsTheContentAndLaysItOutAgainWithinTheBounds() {
        MainActor.assumeIsolated {
            let button = Self.button(image: nil)
            button.setTitle("A much longer title", for: .highlighted)
            button.setImage(Self.icon, for: .highlighted)
            let size = CGSize(width: 300, height: 50)
            Self.layOut(button, in: SizeRange(exactly: size))
            let short = Self.titleSize(button)
            XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.titleNode]))
            XCTAssertEqual(
                button.titleNode.frame,
                CGRect(
                    x: (300 - short.width) / 2, y: (50 - short.height) / 2,
                    width: short.width, height: short.height))

            button.isHighlighted = true
            XCTAssertEqual(Self.shownTitle(button), "A much longer title")
            let long = Self.titleSize(button)
            XCTAssertGreaterThan(long.width, short.width)
            XCTAssertEqual(button.frame.size, size, "the button keeps its size")
            XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.imageNode, button.titleNode]))
            let content = 20 + 8 + long.width
            XCTAssertEqual(button.imageNode.frame, CGRect(x: (300 - content) / 2, y: 10, width: 20, height: 30))
            XCTAssertEqual(
                button.titleNode.frame,
                CGRect(
                    x: (300 - content) / 2 + 28, y: (50 - long.height) / 2,
                    width: long.width, height: long.height))

            button.isHighlighted = false
            XCTAssertEqual(Self.shownTitle(button), "Tap")
            XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.titleNode]))
            XCTAssertEqual(button.titleNode.frame.width, short.width)
        }
    }

    func testAButtonNeverLaidOutIsNotLaidOutByAChange() {
        MainActor.assumeIsolated {
            let button = Self.button()
            button.setTitle("Pressed", for: .highlighted)
            button.isHighlighted = true
            XCTAssertEqual(Self.shownTitle(button), "Pressed")
            XCTAssertTrue(button.subnodes.isEmpty)
            XCTAssertNil(button.calculatedLayout)
        }
    }

    func testAStateChangeFromAnotherThreadShowsAtTheNextTurn() {
        MainActor.assumeIsolated {
            let loop = FrameLoop()
            DisplayScheduler.shared.install(on: loop)
            let button = Self.button()
            button.setTitle("Chosen", for: .selected)
            let done = DispatchSemaphore(value: 0)
            Thread {
                button.isSelected = true
                done.signal()
            }.start()
            XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
            XCTAssertEqual(Self.shownTitle(button), "Tap", "the state is reported on the main thread")
            loop.runTurn()
            XCTAssertEqual(Self.shownTitle(button), "Chosen")
        }
    }

    func testAContentChangeOnAnotherThreadLaysOutALoadedButtonAtTheNextTurn() {
        let reports = Mutex<[String]>([])
        let saved = DisplayNode.threadAffinityViolation
        DisplayNode.threadAffinityViolation = { message in reports.withLock { $0.append(message) } }
        defer { DisplayNode.threadAffinityViolation = saved }

        MainActor.assumeIsolated {
            let loop = FrameLoop()
            DisplayScheduler.shared.install(on: loop)
            let button = Self.button(image: nil)
            Self.layOut(button, in: SizeRange(exactly: CGSize(width: 300, height: 50)))
            _ = button.layer
            let before = button.titleNode.frame
            let done = DispatchSemaphore(value: 0)
            Thread {
                button.setTitle("Tap here, please", for: .normal)
                button.setImage(ButtonNodeTests.icon, for: .normal)
                done.signal()
            }.start()
            XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
            XCTAssertEqual(Self.shownTitle(button), "Tap here, please", "the content changes at once")
            XCTAssertEqual(button.titleNode.frame, before, "the frames change on the main thread")
            XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.titleNode]))
            loop.runTurn()
            let title = Self.titleSize(button)
            XCTAssertEqual(Self.ids(button.subnodes), Self.ids([button.imageNode, button.titleNode]))
            XCTAssertEqual(button.titleNode.frame.size, title)
            XCTAssertEqual(button.titleNode.frame.minX, (300 - (28 + title.width)) / 2 + 28)
            XCTAssertTrue(button.imageNode.layerIfLoaded?.superlayer === button.layer)
            XCTAssertEqual(button.frame.size, CGSize(width: 300, height: 50))
        }
        XCTAssertEqual(reports.withLock { $0 }, [])
    }

    // MARK: Threads

    func testSettingContentFromManyThreadsEndsWithTheLatestContentShown() {
        let button = Self.button()
        let states = ButtonNode.storedStates
        let rounds = 200
        let group = DispatchGroup()
        for (index, state) in states.enumerated() {
            group.enter()
            Thread {
                for round in 0..<rounds {
                    button.setTitle("\(index).\(round)", for: state)
                    if round % 10 == 0 {
                        button.setImage(Bitmap(width: 1 + round % 7, height: 2, fill: .red), for: state)
                    }
                }
                group.leave()
            }.start()
        }
        // Measuring and changing the layout settings meanwhile.
        group.enter()
        Thread {
            for round in 0..<rounds {
                button.contentSpacing = CGFloat(round % 5)
                _ = button.layoutThatFits(Self.wide)
            }
            group.leave()
        }.start()
        XCTAssertEqual(group.wait(timeout: HangGuard.deadline), .success)

        for (index, state) in states.enumerated() {
            XCTAssertEqual(button.attributedTitle(for: state).map { String($0.characters) }, "\(index).\(rounds - 1)")
        }
        XCTAssertEqual(button.titleNode.attributedText, button.attributedTitle(for: .normal))
        XCTAssertTrue(button.imageNode.image === button.image(for: .normal))
        XCTAssertEqual(button.contentSpacing, CGFloat((rounds - 1) % 5))
        // A layout now sees the final content.
        let title = Self.titleSize(button)
        let layout = button.layoutThatFits(Self.wide)
        XCTAssertEqual(layout.size.width, CGFloat(1 + 190 % 7) + button.contentSpacing + title.width)
    }

    // MARK: Input

    /// A 300 x 300 root holding a laid-out button at (10, 10) that shows "Tap", "Pressed" while
    /// highlighted and "Off" while disabled.
    @MainActor
    private static func scene() -> (root: DisplayNode, button: ButtonNode) {
        let root = DisplayNode()
        root.frame = CGRect(x: 0, y: 0, width: 300, height: 300)
        let button = Self.button()
        button.setTitle("Pressed", for: .highlighted)
        button.setTitle("Off", for: .disabled)
        button.contentEdgeInsets = EdgeInsets(all: 10)
        root.addSubnode(button)
        button.frame = CGRect(x: 10, y: 10, width: 0, height: 0)
        button.layoutAndApply(wide)
        return (root, button)
    }

    func testAButtonWithAnActionGetsTouchUpInsideThroughTheRouterAndAsksForTheHand() {
        MainActor.assumeIsolated {
            let (root, button) = Self.scene()
            let clicks = Mutex(0)
            let shownWhilePressed = Mutex<[String]>([])
            button.addAction(for: .touchUpInside) { _, _ in clicks.withLock { $0 += 1 } }
            button.addAction(for: .touchDown) { control, _ in
                shownWhilePressed.withLock { $0.append(ButtonNodeTests.shownTitle(control as! ButtonNode)) }
            }
            let router = NodeInputRouter(rootNode: root)
            // Over the title: the layer-backed title takes no pointer, the button does.
            let overTitle = button.convert(button.titleNode.frame, to: nil)
            let point = CGPoint(x: overTitle.midX, y: overTitle.midY)
            XCTAssertTrue(root.hitTest(point) === button)
            XCTAssertFalse(router.handle(.pointerMoved(point)))
            XCTAssertTrue(router.hoveredControl === button)
            XCTAssertTrue(router.wantsHandCursor)

            XCTAssertTrue(router.handle(.pointerDown(.left, point, clickCount: 1)))
            XCTAssertTrue(router.trackedControl === button)
            XCTAssertTrue(button.isHighlighted)
            XCTAssertEqual(Self.shownTitle(button), "Pressed")
            XCTAssertEqual(shownWhilePressed.withLock { $0 }, ["Pressed"])
            XCTAssertTrue(router.handle(.pointerUp(.left, point)))
            XCTAssertEqual(clicks.withLock { $0 }, 1)
            XCTAssertFalse(button.isHighlighted)
            XCTAssertEqual(Self.shownTitle(button), "Tap")

            // Disabled: no hand, no press, the disabled title.
            button.isEnabled = false
            XCTAssertEqual(Self.shownTitle(button), "Off")
            router.handle(.pointerMoved(point))
            XCTAssertFalse(router.wantsHandCursor)
            XCTAssertFalse(router.handle(.pointerDown(.left, point, clickCount: 1)))
            XCTAssertFalse(router.handle(.pointerUp(.left, point)))
            XCTAssertEqual(clicks.withLock { $0 }, 1)
        }
    }

    func testAButtonWithoutAnActionTakesNoPointer() {
        MainActor.assumeIsolated {
            let (root, button) = Self.scene()
            let router = NodeInputRouter(rootNode: root)
            let point = CGPoint(x: button.frame.midX, y: button.frame.midY)
            router.handle(.pointerMoved(point))
            XCTAssertNil(router.hoveredControl, "as in Texture, a control takes input once it has an action")
            XCTAssertFalse(router.wantsHandCursor)
            XCTAssertFalse(router.handle(.pointerDown(.left, point, clickCount: 1)))
            XCTAssertFalse(button.isHighlighted)
        }
    }
}
