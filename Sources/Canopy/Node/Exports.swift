// Canopy's API speaks CanopyGraphics' types (`EdgeInsets` for insets, and `Color`, `Bitmap` for
// the nodes), so a file that imports Canopy gets them too, as UIKit's types come with Texture.
@_exported import CanopyGraphics
