import Foundation
import XCTest
@testable import Canopy

/// Draws a checkerboard of 1 pt squares over its bounds (a picture any resampling would blur).
private final class CheckerNode: DisplayNode, ContentDrawing, @unchecked Sendable {
    func drawParameters() -> CGSize { bounds.size }

    class func draw(_ size: CGSize, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        for y in 0..<Int(size.height) {
            for x in 0..<Int(size.width) where (x + y) % 2 == 0 {
                context.fill(CGRect(x: x, y: y, width: 1, height: 1), with: Color(red: 0.9, green: 0.2, blue: 0.1))
            }
        }
    }
}

final class RasterizedSubtreeTests: XCTestCase {
    /// A rasterized subtree with a node clipping at a fractional position, holding a checkerboard
    /// and a translucent background that overflow it.
    @MainActor
    private static func draw(cornerRadius: CGFloat, scale: CGFloat) -> Bitmap {
        let root = DisplayNode()
        root.frame = CGRect(x: 0, y: 0, width: 48, height: 40)
        let clip = DisplayNode()
        clip.frame = CGRect(x: 10.5, y: 7.25, width: 30, height: 26)
        clip.clipsToBounds = true
        clip.cornerRadius = cornerRadius
        clip.backgroundColor = Color(red: 0, green: 0, blue: 1)
        let checker = CheckerNode()
        checker.frame = CGRect(x: -0.5, y: 0.25, width: 34, height: 30)
        let wash = DisplayNode()
        wash.frame = CGRect(x: 5.75, y: -3, width: 40, height: 12)
        wash.backgroundColor = Color(red: 0, green: 1, blue: 0, alpha: 0.5)
        clip.addSubnode(checker)
        clip.addSubnode(wash)
        root.addSubnode(clip)
        let context = GraphicsContext(size: root.bounds.size, scale: scale)
        RasterizedSubtree(capturing: root).draw(in: context, isCancelled: { false })
        return context.makeBitmap()
    }

    /// A rounded clip composites the clipped content in a bitmap of its own before cutting it;
    /// that bitmap lies on the context's pixel grid, so away from the corners the result is the
    /// content drawn directly (a rectangular clip), pixel for pixel, at a fractional position too.
    func testARoundedClipKeepsThePixelGridAwayFromItsCorners() {
        MainActor.assumeIsolated {
            for scale in [1, 2, 1.5] as [CGFloat] {
                let radius: CGFloat = 6
                let rounded = Self.draw(cornerRadius: radius, scale: scale)
                let square = Self.draw(cornerRadius: 0, scale: scale)
                // The clip in pixels, and its corners' squares (grown a pixel for the rims).
                let clip = CGRect(x: 10.5 * scale, y: 7.25 * scale, width: 30 * scale, height: 26 * scale)
                let corner = radius * scale + 1
                var compared = 0, differing = 0, cornerDiffers = false
                for y in 0..<rounded.height {
                    for x in 0..<rounded.width {
                        let px = CGFloat(x) + 0.5, py = CGFloat(y) + 0.5
                        let nearX = px < clip.minX + corner || px > clip.maxX - corner
                        let nearY = py < clip.minY + corner || py > clip.maxY - corner
                        let a = rounded.pixel(x: x, y: y), b = square.pixel(x: x, y: y)
                        let d = max(
                            abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)),
                            abs(Int(a.a) - Int(b.a)))
                        if nearX && nearY {
                            if d > 0 { cornerDiffers = true }
                            continue
                        }
                        // Pixels the clip's edge crosses differ by design: the rectangular clip
                        // cuts each drawing, the rounded one their composite.
                        let pixel = CGRect(x: x, y: y, width: 1, height: 1)
                        if pixel.intersects(clip) && !clip.contains(pixel) { continue }
                        compared += 1
                        if d > 1 { differing += 1 }
                    }
                }
                XCTAssertGreaterThan(compared, 0)
                XCTAssertEqual(differing, 0, "at scale \(scale), \(differing) of \(compared) pixels moved")
                XCTAssertTrue(cornerDiffers, "at scale \(scale) the corners are cut")
            }
        }
    }
}
