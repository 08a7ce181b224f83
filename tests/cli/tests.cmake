# Command-line contract tests (cli.md): help, version, exit codes, one-line errors,
# JSON output.
add_test(NAME cli_contract
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR} ${CMAKE_SOURCE_DIR})
add_test(NAME cli_design
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_design_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR})
add_test(NAME cli_run
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_run_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR})
# Regression tests of the reliability findings (issue 21), one script per area.
foreach(area import boards multi)
  add_test(NAME cli_reliability_${area}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_reliability_${area}.sh
            $<TARGET_FILE:cnnmap_cli> ${CM_SHARED_DIR} ${CMAKE_SOURCE_DIR})
endforeach()
# nn2FPGA design files: optimise -o, evaluate, export, hand edits (issue 14).
add_test(NAME cli_nn2fpga_design
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_nn2fpga_design_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR})
# HLS generation: export --format hls, then the project's C simulation against cnnmap run
# (issue 14). One model keeps CI short (each build compiles it with its own C++ compiler,
# the sanitizer build with ASan/UBSan); the README's benchmark covers all four.
add_test(NAME cli_hls_resnet8_a8w8
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_hls_export.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR} ${CMAKE_CXX_COMPILER} resnet8_a8w8b16.onnx kv260 10 "${CM_LINK_SANITIZERS}")
# Simulator-sized stream depths through the design file into the HLS export and its C
# simulation (issue 15).
add_test(NAME cli_simulate_nn2fpga_resnet8_a8w8
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_simulate_nn2fpga.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR} ${CMAKE_CXX_COMPILER} resnet8_a8w8b16.onnx kv260 4 "${CM_LINK_SANITIZERS}")
# Random valid designs (random unroll factors) through the generator and the C simulation.
add_test(NAME hls_random_designs_resnet8
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/hls/random_designs.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR}/models/resnet8_a8w8b16.onnx kv260 2 ${CMAKE_CXX_COMPILER} 3)
# Grouped convolutions on nn2FPGA (issue 16): the cost model by hand, a refusal, the HLS
# project bit-identical to cnnmap run, the simulation at the period; random factor sets.
add_test(NAME cli_nn2fpga_grouped
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_nn2fpga_grouped.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_TEST_MODELS_DIR}/resnet8_grouped.onnx kv260 ${CMAKE_CXX_COMPILER} 5 "${CM_LINK_SANITIZERS}")
add_test(NAME hls_random_designs_grouped
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/hls/random_designs.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_TEST_MODELS_DIR}/resnet8_grouped.onnx kv260 2 ${CMAKE_CXX_COMPILER} 3)
set_tests_properties(cli_nn2fpga_grouped hls_random_designs_grouped PROPERTIES
  FIXTURES_REQUIRED grouped_model)
# `cnnmap compare`: every architecture side by side (issue 13).
add_test(NAME cli_compare
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_compare_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR} ${CM_TEST_MODELS_DIR})
# Latency-driven fpgaConvNet design files: optimise -o, evaluate, export, hand edits.
add_test(NAME cli_latency_design
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_latency_design_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_TEST_MODELS_DIR} ${CM_SHARED_DIR})
# DYNAMAP overlay design files: overlay -o, evaluate, export, hand edits.
add_test(NAME cli_overlay_design
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_overlay_design_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_TEST_MODELS_DIR})
set_tests_properties(cli_overlay_design PROPERTIES FIXTURES_REQUIRED zoo_models)
# f-CNNx design files: multi -o, evaluate, export report-md, hand edits.
add_test(NAME cli_multi_design
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_multi_design_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_TEST_MODELS_DIR})
set_tests_properties(cli_multi_design PROPERTIES FIXTURES_REQUIRED zoo_models)
# No default of `optimise` depends on the clock (issue 20): the same JSON twice.
add_test(NAME cli_optimise_determinism
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_optimise_determinism.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_TEST_MODELS_DIR})
set_tests_properties(cli_optimise_determinism PROPERTIES FIXTURES_REQUIRED "torchvision_models;zoo_models")
# nn2FPGA: every integer program within the time limit, bounds before programs (issue 20).
add_test(NAME cli_nn2fpga_limits
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_nn2fpga_limits_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_TEST_MODELS_DIR})
set_tests_properties(cli_nn2fpga_limits PROPERTIES FIXTURES_REQUIRED torchvision_models)
# `cnnmap simulate`: usage, bad files, streaming and nn2FPGA designs, FIFO sizing (issue 15).
add_test(NAME cli_simulate
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_simulate_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR} ${CM_TEST_MODELS_DIR})
set_tests_properties(cli_simulate PROPERTIES FIXTURES_REQUIRED zoo_models)
# The contract and simulate tests again with cnnmap under Valgrind's memcheck (issue 19):
# any memory error or leak is exit 98, which no check expects. Not with the sanitizers,
# which Valgrind cannot run beside.
find_program(CM_VALGRIND valgrind)
if(CM_VALGRIND AND NOT CM_SANITIZE)
  add_test(NAME cli_contract_valgrind
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli.sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/valgrind_wrap.sh
            ${CM_SHARED_DIR} ${CMAKE_SOURCE_DIR})
  add_test(NAME cli_simulate_valgrind
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_simulate_cli.sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/valgrind_wrap.sh
            ${CM_SHARED_DIR} ${CM_TEST_MODELS_DIR})
  set_tests_properties(cli_contract_valgrind cli_simulate_valgrind PROPERTIES
    ENVIRONMENT "CM_VALGRIND_CNNMAP=$<TARGET_FILE:cnnmap_cli>" TIMEOUT 900)
  set_tests_properties(cli_simulate_valgrind PROPERTIES FIXTURES_REQUIRED zoo_models)
endif()
# Streaming designs' FIFO depths (written, simulated, costed, exported) and simulate's
# --time-limit (issues 15 and 21).
add_test(NAME cli_simulate_fifo
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_simulate_fifo_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CMAKE_SOURCE_DIR} ${CM_TEST_MODELS_DIR})
set_tests_properties(cli_simulate_fifo PROPERTIES FIXTURES_REQUIRED zoo_models)
# --csv on inspect, optimise and evaluate: the --json object's table as CSV (issue 18).
add_test(NAME cli_csv
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_csv_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR} ${CM_TEST_MODELS_DIR})
# `export --format report-html`: every architecture's page against evaluate --json (issue 18).
add_test(NAME cli_report_html
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_report_html_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_SHARED_DIR} ${CM_TEST_MODELS_DIR})
set_tests_properties(cli_report_html PROPERTIES FIXTURES_REQUIRED zoo_models)
# `sweep` (outputs, fronts, threads, --time-limit, bad input) and optimise's --max-util
# and --target-fps (issues 18 and 21).
add_test(NAME cli_sweep
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_sweep_cli.sh $<TARGET_FILE:cnnmap_cli>
          ${CM_TEST_MODELS_DIR})
set_tests_properties(cli_sweep PROPERTIES FIXTURES_REQUIRED zoo_models)
