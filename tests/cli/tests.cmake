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
