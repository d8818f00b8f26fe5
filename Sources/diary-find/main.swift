import DiaryCLI
import FindCLI

Launcher.launchLocal(FindCommand.self)
