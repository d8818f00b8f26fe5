import DiaryKit

await Launcher.launch(ChatCommand.self)
