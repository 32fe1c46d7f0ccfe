// The `rainforest` executable. The app itself is the RainforestKit library, which the tests and
// the fuzzers import as a module.
import RainforestKit

RainforestMain.main()
