# Operator table code generation: scripts/gen_ops.py reads core/ops/data/ and
# writes the schema table and the tag list into the build tree. Included by
# core/CMakeLists.txt after pteforge_core exists.

set(_ops_gen_dir ${CMAKE_CURRENT_BINARY_DIR}/generated/ops)
set(_ops_script ${PROJECT_SOURCE_DIR}/scripts/gen_ops.py)
file(GLOB _ops_data CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/ops/data/*.yaml
     ${CMAKE_CURRENT_SOURCE_DIR}/ops/data/*.tsv
     ${CMAKE_CURRENT_SOURCE_DIR}/ops/data/*.md)
set(_ops_outputs ${_ops_gen_dir}/op_table_data.inc ${_ops_gen_dir}/op_tags.def)

add_custom_command(
  OUTPUT ${_ops_outputs}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_ops_gen_dir}
  COMMAND ${Python3_EXECUTABLE} ${_ops_script}
          --data-dir ${CMAKE_CURRENT_SOURCE_DIR}/ops/data --out-dir ${_ops_gen_dir}
  DEPENDS ${_ops_script} ${_ops_data}
  COMMENT "Generating the operator table (scripts/gen_ops.py)"
  VERBATIM)

target_sources(pteforge_core PRIVATE ${_ops_outputs})
