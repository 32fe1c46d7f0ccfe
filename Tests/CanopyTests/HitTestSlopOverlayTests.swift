import Foundation
import XCTest
@testable import Canopy

/// The hit-test overlay's geometry against examples worked out by hand (window points).
final class HitTestSlopOverlayTests: XCTestCase {
    private typealias Region = HitTestSlopRegion

    private static func node(
        _ frame: CGRect, in parent: DisplayNode? = nil, slop: EdgeInsets = .zero,
        clips: Bool = false
    ) -> DisplayNode {
        let node = DisplayNode()
        node.frame = frame
        node.hitTestSlop = slop
        node.clipsToBounds = clips
        parent?.addSubnode(node)
        return node
    }

    /// A control with an action (so it takes input).
    private static func control(_ frame: CGRect, in parent: DisplayNode, slop: EdgeInsets = .zero) -> ControlNode {
        let control = ControlNode()
        control.frame = frame
        control.hitTestSlop = slop
        control.addAction(for: .touchUpInside) { _, _ in }
        parent.addSubnode(control)
        return control
    }

    private static let green = HitTestSlopOverlay.tappableAreaCutColor
    private static let orange = HitTestSlopOverlay.clippingCutColor

    func testTheColoursAreTexturesAndDesignsFigures() {
        XCTAssertEqual(HitTestSlopOverlay.fillColor, Color(red: 0, green: 1, blue: 0, alpha: 0.4))
        XCTAssertEqual(
            HitTestSlopOverlay.tappableAreaCutColor,
            Color(red: 30.0 / 255, green: 90.0 / 255, blue: 50.0 / 255, alpha: 0.7))
        XCTAssertEqual(HitTestSlopOverlay.clippingCutColor, Color(red: 1, green: 0.5, blue: 0, alpha: 0.8))
        XCTAssertEqual(HitTestSlopOverlay.bandWidth, 2)
    }

    func testAnUncutControlIsItsBoundsGrownBySlopFilledWholeAtTheRootsOrigin() {
        let root = Self.node(CGRect(x: 0, y: 0, width: 200, height: 200))
        let control = Self.control(CGRect(x: 50, y: 50, width: 40, height: 20), in: root, slop: EdgeInsets(all: -10))
        var regions = HitTestSlopOverlay.regions(in: root, origin: .zero)
        XCTAssertEqual(regions.count, 1)
        XCTAssertTrue(regions[0].control === control)
        XCTAssertEqual(regions[0].rect, CGRect(x: 40, y: 40, width: 60, height: 40))
        XCTAssertEqual(regions[0].fill, regions[0].rect)
        XCTAssertEqual(regions[0].fillColor, HitTestSlopOverlay.fillColor)
        XCTAssertEqual(regions[0].cuts, [:])
        XCTAssertEqual(regions[0].bands, [])
        XCTAssertEqual(regions[0].pieces.count, 1)

        // The root's frame origin and the given origin both move it.
        root.frame = CGRect(x: 3, y: 0, width: 200, height: 200)
        regions = HitTestSlopOverlay.regions(in: root, origin: CGPoint(x: 5, y: 7))
        XCTAssertEqual(regions.first?.rect, CGRect(x: 48, y: 47, width: 60, height: 40))

        // Positive slop shrinks it.
        control.hitTestSlop = EdgeInsets(all: 5)
        regions = HitTestSlopOverlay.regions(in: root, origin: .zero)
        XCTAssertEqual(regions.first?.rect, CGRect(x: 58, y: 55, width: 30, height: 10))
        XCTAssertEqual(regions.first?.bands, [])
    }

    func testAnEdgeCutByANonClippingParentsOwnAreaGetsADarkGreenBand() throws {
        // Parent at (20, 20, 100, 50); the control at (0, 10, 40, 20) in it with 10 pt of slop:
        // its area is (10, 20, 60, 40) in the window, and only its left edge passes the parent's.
        let root = Self.node(CGRect(x: 0, y: 0, width: 200, height: 200))
        let parent = Self.node(CGRect(x: 20, y: 20, width: 100, height: 50), in: root)
        _ = Self.control(CGRect(x: 0, y: 10, width: 40, height: 20), in: parent, slop: EdgeInsets(all: -10))
        let region = try XCTUnwrap(HitTestSlopOverlay.regions(in: root, origin: .zero).first)
        XCTAssertEqual(region.rect, CGRect(x: 20, y: 20, width: 50, height: 40))
        XCTAssertEqual(region.cuts, [.left: .tappableArea], "the top edge meets the parent's exactly: not cut")
        XCTAssertEqual(
            region.bands,
            [
                Region.Band(
                    edge: .left, cut: .tappableArea,
                    rect: CGRect(x: 20, y: 20, width: 2, height: 40), color: Self.green)
            ])
        XCTAssertEqual(region.fill, CGRect(x: 22, y: 20, width: 48, height: 40))
    }

    func testAnEdgeCutByAClippingParentWithSlopGetsAnOrangeBand() throws {
        // As above, but the parent clips and has 10 pt of slop: its tappable area (10, 10, 120, 70)
        // holds the control's whole area, so only the clipping cuts it, at the parent's bounds.
        let root = Self.node(CGRect(x: 0, y: 0, width: 200, height: 200))
        let parent = Self.node(
            CGRect(x: 20, y: 20, width: 100, height: 50), in: root,
            slop: EdgeInsets(all: -10), clips: true)
        _ = Self.control(CGRect(x: 0, y: 10, width: 40, height: 20), in: parent, slop: EdgeInsets(all: -10))
        let region = try XCTUnwrap(HitTestSlopOverlay.regions(in: root, origin: .zero).first)
        XCTAssertEqual(region.rect, CGRect(x: 20, y: 20, width: 50, height: 40))
        XCTAssertEqual(region.cuts, [.left: .clipping])
        XCTAssertEqual(
            region.bands,
            [
                Region.Band(
                    edge: .left, cut: .clipping,
                    rect: CGRect(x: 20, y: 20, width: 2, height: 40), color: Self.orange)
            ])
        XCTAssertEqual(region.fill, CGRect(x: 22, y: 20, width: 48, height: 40))
    }

    func testAClippingParentWithoutSlopCutsDarkGreenAsInTexture() throws {
        // Its tappable area is its bounds: the cut is real, not only the overlay's.
        let root = Self.node(CGRect(x: 0, y: 0, width: 200, height: 200))
        let parent = Self.node(CGRect(x: 20, y: 20, width: 100, height: 50), in: root, clips: true)
        _ = Self.control(CGRect(x: 80, y: 10, width: 40, height: 20), in: parent, slop: EdgeInsets(all: -10))
        // Area (90, 20, 60, 40): the right edge (150) passes the parent's (120).
        let region = try XCTUnwrap(HitTestSlopOverlay.regions(in: root, origin: .zero).first)
        XCTAssertEqual(region.rect, CGRect(x: 90, y: 20, width: 30, height: 40))
        XCTAssertEqual(region.cuts, [.right: .tappableArea])
        XCTAssertEqual(region.bands.map(\.rect), [CGRect(x: 118, y: 20, width: 2, height: 40)])
        XCTAssertEqual(region.bands.map(\.color), [Self.green])
    }

    func testCutsFromDifferentAncestorsAndTheOrangeBandTakingTheCorner() throws {
        // Root 400 x 400. G at (100, 100, 200, 200) clips, with 50 pt of slop (tappable
        // (50, 50)-(350, 350)). P in G at (-20, 50, 150, 100): window (80, 150)-(230, 250). The
        // control in P at (0, 0, 40, 20) with 10 pt of slop on the top and left: area
        // (70, 140)-(120, 170).
        // Left: the tappable limits are 0, 50, 80; the clip is at 100: orange, at 100.
        // Top: the tappable limits are 0, 50, 150; the clip is at 100: dark green, at 150.
        let root = Self.node(CGRect(x: 0, y: 0, width: 400, height: 400))
        let g = Self.node(CGRect(x: 100, y: 100, width: 200, height: 200), in: root, slop: EdgeInsets(all: -50), clips: true)
        let p = Self.node(CGRect(x: -20, y: 50, width: 150, height: 100), in: g)
        _ = Self.control(CGRect(x: 0, y: 0, width: 40, height: 20), in: p, slop: EdgeInsets(top: -10, left: -10))
        let region = try XCTUnwrap(HitTestSlopOverlay.regions(in: root, origin: .zero).first)
        XCTAssertEqual(region.rect, CGRect(x: 100, y: 150, width: 20, height: 20))
        XCTAssertEqual(region.cuts, [.left: .clipping, .top: .tappableArea])
        XCTAssertEqual(
            region.bands,
            [
                Region.Band(
                    edge: .top, cut: .tappableArea, rect: CGRect(x: 102, y: 150, width: 18, height: 2), color: Self.green),
                Region.Band(edge: .left, cut: .clipping, rect: CGRect(x: 100, y: 150, width: 2, height: 20), color: Self.orange),
            ])
        XCTAssertEqual(region.fill, CGRect(x: 102, y: 152, width: 18, height: 18))
    }

    func testTheLimitThatPlacesAnEdgeColoursIt() throws {
        // A clipping parent cuts the left edge at 90, but the grandparent's own area cuts it further
        // in, at 100: the edge is where the real limit is, dark green (Texture would draw it orange).
        let root = Self.node(CGRect(x: 0, y: 0, width: 400, height: 400))
        let g = Self.node(CGRect(x: 100, y: 100, width: 200, height: 200), in: root)
        let p = Self.node(CGRect(x: -10, y: 50, width: 100, height: 100), in: g, slop: EdgeInsets(all: -20), clips: true)
        _ = Self.control(CGRect(x: 0, y: 10, width: 40, height: 20), in: p, slop: EdgeInsets(left: -20))
        // Area (70, 160)-(130, 180).
        let region = try XCTUnwrap(HitTestSlopOverlay.regions(in: root, origin: .zero).first)
        XCTAssertEqual(region.rect, CGRect(x: 100, y: 160, width: 30, height: 20))
        XCTAssertEqual(region.cuts, [.left: .tappableArea])
    }

    func testOnlyControlsThePointerCanReachGetRegions() {
        let root = Self.node(CGRect(x: 0, y: 0, width: 400, height: 400))
        let shown = Self.control(CGRect(x: 0, y: 0, width: 20, height: 20), in: root)

        let hidden = Self.control(CGRect(x: 30, y: 0, width: 20, height: 20), in: root)
        hidden.isHidden = true
        let transparent = Self.control(CGRect(x: 60, y: 0, width: 20, height: 20), in: root)
        transparent.alpha = 0
        let disabled = Self.control(CGRect(x: 90, y: 0, width: 20, height: 20), in: root)
        disabled.isEnabled = false
        _ = Self.control(CGRect(x: 0, y: 0, width: 10, height: 10), in: disabled)  // inside a disabled control
        let noAction = ControlNode()
        noAction.frame = CGRect(x: 120, y: 0, width: 20, height: 20)
        root.addSubnode(noAction)
        let hiddenParent = Self.node(CGRect(x: 150, y: 0, width: 50, height: 50), in: root)
        hiddenParent.isHidden = true
        _ = Self.control(CGRect(x: 0, y: 0, width: 20, height: 20), in: hiddenParent)
        let layerBackedParent = Self.node(CGRect(x: 210, y: 0, width: 50, height: 50), in: root)
        layerBackedParent.isLayerBacked = true
        _ = Self.control(CGRect(x: 0, y: 0, width: 20, height: 20), in: layerBackedParent)
        let small = Self.node(CGRect(x: 270, y: 0, width: 10, height: 10), in: root)
        _ = Self.control(CGRect(x: 20, y: 20, width: 20, height: 20), in: small)  // wholly outside its parent
        let shrunk = Self.control(CGRect(x: 300, y: 0, width: 20, height: 20), in: root, slop: EdgeInsets(all: 10))
        _ = shrunk

        let regions = HitTestSlopOverlay.regions(in: root, origin: .zero)
        XCTAssertEqual(regions.count, 1)
        XCTAssertTrue(regions.first?.control === shown)
    }

    func testAControlInsideAControlIsBoundedByItAndListedAfterIt() {
        let root = Self.node(CGRect(x: 0, y: 0, width: 400, height: 400))
        let outer = Self.control(CGRect(x: 10, y: 10, width: 100, height: 50), in: root, slop: EdgeInsets(all: -5))
        let inner = Self.control(CGRect(x: 80, y: 10, width: 30, height: 30), in: outer, slop: EdgeInsets(all: -5))
        let sibling = Self.control(CGRect(x: 200, y: 10, width: 10, height: 10), in: root)
        let regions = HitTestSlopOverlay.regions(in: root, origin: .zero)
        XCTAssertEqual(
            regions.map { ObjectIdentifier($0.control) },
            [outer, inner, sibling].map { ObjectIdentifier($0) })
        // Inner area: (85, 15)-(125, 55); the outer's area (5, 5)-(115, 65) cuts the right at 115.
        XCTAssertEqual(regions[0].rect, CGRect(x: 5, y: 5, width: 110, height: 60))
        XCTAssertEqual(regions[1].rect, CGRect(x: 85, y: 15, width: 30, height: 40))
        XCTAssertEqual(regions[1].cuts, [.right: .tappableArea])
    }

    func testBandsOfAThinRegionTakeHalfOfItEach() throws {
        // A 3 pt tall parent cuts the control's top and bottom.
        let root = Self.node(CGRect(x: 0, y: 0, width: 400, height: 400))
        let strip = Self.node(CGRect(x: 0, y: 0, width: 100, height: 3), in: root)
        _ = Self.control(CGRect(x: 10, y: -5, width: 20, height: 13), in: strip)
        let region = try XCTUnwrap(HitTestSlopOverlay.regions(in: root, origin: .zero).first)
        XCTAssertEqual(region.rect, CGRect(x: 10, y: 0, width: 20, height: 3))
        XCTAssertEqual(region.cuts, [.top: .tappableArea, .bottom: .tappableArea])
        XCTAssertEqual(
            region.bands.map(\.rect),
            [
                CGRect(x: 10, y: 0, width: 20, height: 1.5),
                CGRect(x: 10, y: 1.5, width: 20, height: 1.5),
            ])
        XCTAssertEqual(region.fill.height, 0)
        XCTAssertEqual(region.pieces.count, 2, "an empty fill is not a piece")
    }

    func testThePiecesTileTheRegionForEveryCombinationOfCuts() {
        let rect = CGRect(x: 10, y: 20, width: 30, height: 16)
        let options: [Region.Cut?] = [nil, .tappableArea, .clipping]
        func rank(_ cut: Region.Cut?) -> Int { cut == nil ? 0 : cut == .tappableArea ? 1 : 2 }
        for top in options {
            for left in options {
                for bottom in options {
                    for right in options {
                        var cuts: [Region.Edge: Region.Cut] = [:]
                        cuts[.top] = top; cuts[.left] = left; cuts[.bottom] = bottom; cuts[.right] = right
                        let (fill, bands) = HitTestSlopOverlay.tiles(of: rect, cuts: cuts)
                        let label = "\(cuts)"
                        var pieces = bands.map { ($0.rect, $0.color) }
                        if fill.width > 0 && fill.height > 0 { pieces.append((fill, HitTestSlopOverlay.fillColor)) }
                        // Together they cover the region exactly, without overlapping.
                        XCTAssertEqual(pieces.reduce(0) { $0 + $1.0.width * $1.0.height }, rect.width * rect.height, label)
                        for i in pieces.indices {
                            XCTAssertTrue(rect.contains(pieces[i].0), label)
                            for j in pieces.indices where j > i {
                                let overlap = pieces[i].0.intersection(pieces[j].0)
                                XCTAssertTrue(overlap.isNull || overlap.width * overlap.height == 0, label)
                            }
                        }
                        // One band per cut edge, 2 pt thick, on its edge, in its colour.
                        XCTAssertEqual(bands.map(\.edge), Region.Edge.allCases.filter { cuts[$0] != nil }, label)
                        for band in bands {
                            XCTAssertEqual(band.color, band.cut == .clipping ? Self.orange : Self.green, label)
                            switch band.edge {
                            case .top:
                                XCTAssertEqual(band.rect.minY, rect.minY, label); XCTAssertEqual(band.rect.height, 2, label)
                            case .bottom:
                                XCTAssertEqual(band.rect.maxY, rect.maxY, label); XCTAssertEqual(band.rect.height, 2, label)
                            case .left:
                                XCTAssertEqual(band.rect.minX, rect.minX, label); XCTAssertEqual(band.rect.width, 2, label)
                            case .right:
                                XCTAssertEqual(band.rect.maxX, rect.maxX, label); XCTAssertEqual(band.rect.width, 2, label)
                            }
                        }
                        // Each corner takes the colour of the higher-ranked of its two edges.
                        func color(at point: CGPoint) -> Color? {
                            pieces.first { $0.0.contains(point) }?.1
                        }
                        let corners: [(CGPoint, Region.Cut?, Region.Cut?)] = [
                            (CGPoint(x: rect.minX + 0.5, y: rect.minY + 0.5), top, left),
                            (CGPoint(x: rect.maxX - 0.5, y: rect.minY + 0.5), top, right),
                            (CGPoint(x: rect.minX + 0.5, y: rect.maxY - 0.5), bottom, left),
                            (CGPoint(x: rect.maxX - 0.5, y: rect.maxY - 0.5), bottom, right),
                        ]
                        for (point, horizontal, vertical) in corners {
                            let strongest = rank(vertical) > rank(horizontal) ? vertical : horizontal
                            let expected =
                                strongest.map { $0 == .clipping ? Self.orange : Self.green } ?? HitTestSlopOverlay.fillColor
                            XCTAssertEqual(color(at: point), expected, "\(label) at \(point)")
                        }
                    }
                }
            }
        }
    }

    func testTheMainThreadVariantPlacesTheRootWhereItsLayerIs() {
        MainActor.assumeIsolated {
            let root = Self.node(CGRect(x: 0, y: 0, width: 200, height: 200))
            _ = Self.control(CGRect(x: 10, y: 10, width: 20, height: 20), in: root)
            XCTAssertEqual(HitTestSlopOverlay.regions(in: root).first?.rect, CGRect(x: 10, y: 10, width: 20, height: 20))
            let window = Layer(frame: CGRect(x: 0, y: 0, width: 800, height: 600))
            let scroller = Layer(frame: CGRect(x: 100, y: 0, width: 400, height: 600))
            scroller.boundsOrigin = CGPoint(x: 0, y: 50)
            window.addSublayer(scroller)
            scroller.addSublayer(root.layer)
            XCTAssertEqual(HitTestSlopOverlay.regions(in: root).first?.rect, CGRect(x: 110, y: -40, width: 20, height: 20))
        }
    }
}
