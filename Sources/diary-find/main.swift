import DiaryCLI
import FindCLI

await Launcher.launch(FindCommand.self)
