import CompanionCLI
import DiaryCLI

await Launcher.launch(ChatCommand.self)
