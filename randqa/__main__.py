from randqa.cli import main

main()
