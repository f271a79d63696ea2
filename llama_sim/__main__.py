from llama_sim.cli import main

main()
