import Canopy
import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest
@testable import CanopySDL

/// The hit-test overlay drawn by a headless application over a node tree.
final class HitTestSlopOverlayDrawingTests: XCTestCase {
    private static func control(_ frame: CGRect, in parent: DisplayNode, slop: EdgeInsets) -> ControlNode {
        let control = ControlNode()
        control.frame = frame
        control.hitTestSlop = slop
        control.addAction(for: .touchUpInside) { _, _ in }
        parent.addSubnode(control)
        return control
    }

    func testTheOverlayFillsTheRegionsOverTheLayerTree() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 300, height: 200, renderDriver: "software")
            defer { app.close() }
            let root = DisplayNode()
            root.frame = CGRect(x: 0, y: 0, width: 300, height: 200)
            // A clipping parent with slop cuts the control's left edge: orange at x 50.
            let clipper = DisplayNode()
            clipper.frame = CGRect(x: 50, y: 50, width: 100, height: 60)
            clipper.clipsToBounds = true
            clipper.hitTestSlop = EdgeInsets(all: -10)
            root.addSubnode(clipper)
            _ = Self.control(CGRect(x: -20, y: 10, width: 40, height: 20), in: clipper, slop: EdgeInsets(all: -5))
            // A plain parent's own area cuts another's right edge: dark green at x 248..250.
            let plain = DisplayNode()
            plain.frame = CGRect(x: 200, y: 50, width: 50, height: 50)
            root.addSubnode(plain)
            _ = Self.control(CGRect(x: 30, y: 10, width: 40, height: 20), in: plain, slop: .zero)
            app.rootLayer.setSublayers([root.layer])
            app.overlayRootNode = root

            var frame = try XCTUnwrap(app.captureFrame())
            SDLTestSupport.assertColor(frame, 60, 70, (255, 255, 255))  // off: nothing drawn

            app.showsHitTestSlop = true
            app.cursor = .hand  // headless: ignored, harmless
            frame = try XCTUnwrap(app.captureFrame())
            SDLTestSupport.assertColor(frame, 60, 70, (153, 255, 153))  // green 0.4 over white
            SDLTestSupport.assertColor(frame, 50, 70, (255, 153, 51))  // orange 0.8 band
            SDLTestSupport.assertColor(frame, 51, 70, (255, 153, 51))
            SDLTestSupport.assertColor(frame, 52, 70, (153, 255, 153))
            SDLTestSupport.assertColor(frame, 45, 70, (255, 255, 255))  // clipped away: not shown
            SDLTestSupport.assertColor(frame, 240, 70, (153, 255, 153))
            SDLTestSupport.assertColor(frame, 249, 70, (98, 140, 112))  // dark green 0.7 band
            SDLTestSupport.assertColor(frame, 251, 70, (255, 255, 255))
        }
    }
}
