# Generates the FlatBuffers C++ API for pteforge's .pte schema at build time
# (nothing generated is committed: flatc 2.0.8 pins its header version, see
# engineering-notes C3). Output: <build>/core/generated/schema/
# program_generated.h and scalar_type_generated.h, included as
# "schema/program_generated.h" by core/emit only.

set(_pf_schema_dir ${CMAKE_CURRENT_SOURCE_DIR}/schema)
set(_pf_schema_out ${CMAKE_CURRENT_BINARY_DIR}/generated/schema)
set(_pf_schema_fbs ${_pf_schema_dir}/program.fbs ${_pf_schema_dir}/scalar_type.fbs)
set(_pf_schema_headers ${_pf_schema_out}/program_generated.h ${_pf_schema_out}/scalar_type_generated.h)

add_custom_command(
  OUTPUT ${_pf_schema_headers}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_pf_schema_out}
  COMMAND ${FLATC} --cpp --cpp-std c++17 --scoped-enums --reflect-names
          -o ${_pf_schema_out} ${_pf_schema_fbs}
  DEPENDS ${_pf_schema_fbs}
  COMMENT "flatc: generating the .pte schema headers"
  VERBATIM)
add_custom_target(pteforge_schema DEPENDS ${_pf_schema_headers})
target_sources(pteforge_core PRIVATE ${_pf_schema_headers})
add_dependencies(pteforge_core pteforge_schema)
