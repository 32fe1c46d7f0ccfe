// libFuzzer target: the animation decoder (CanopyGraphics' AnimationDecoder over CCodecs'
// giflib and WebPAnimDecoder code), linked against the CanopyGraphics module that Fuzz/run builds
// with coverage.
//
// For any bytes, AnimationDecoder(bytes:) gives an animation or throws an ImageError (its typed
// throws allow nothing else); it must never trap, leak or touch memory it does not own. An
// animation has a canvas of 1 to 1 MP here (the fuzzer's own limit, to keep inputs fast) and at
// least one frame. Its frames, read twice round (up to 16), come in order (0, 1, ... then 0
// again; a failed frame starts over from 0), scaled to cover 32 x 32 and never larger than the
// canvas, each shown at least 10 ms.
import CanopyGraphics
import Foundation

private let maximumPixels = 1_000_000

@_cdecl("LLVMFuzzerTestOneInput")
public func animationFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    let animation: AnimationDecoder
    do throws(ImageError) {
        animation = try AnimationDecoder(bytes: bytes, maximumPixels: maximumPixels)
    } catch {
        return 0
    }
    require(animation.width >= 1 && animation.height >= 1, "canvas \(animation.width) x \(animation.height)")
    require(animation.width * animation.height <= maximumPixels, "canvas over the limit")
    require(animation.frameCount >= 1, "no frames")
    require(animation.loopCount >= 0, "loop count \(animation.loopCount)")
    var expected = 0
    for _ in 0..<min(16, animation.frameCount * 2) {
        do throws(ImageError) {
            let frame = try animation.nextFrame(fitting: CGSize(width: 32, height: 32))
            require(frame.index == expected, "frame \(frame.index), expected \(expected)")
            require(frame.duration >= 0.01, "duration \(frame.duration)")
            require(
                frame.bitmap.width <= animation.width && frame.bitmap.height <= animation.height,
                "a frame of \(frame.bitmap.width) x \(frame.bitmap.height) on a canvas of \(animation.width) x \(animation.height)"
            )
            expected = (frame.index + 1) % animation.frameCount
        } catch {
            if case .cancelled = error { fatalError("cancelled without a cancellation check") }
            expected = 0
        }
    }
    return 0
}

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
