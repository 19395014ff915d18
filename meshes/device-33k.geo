// device-33k.geo -- bipolar transistor mesh of about 33k nodes (the seed
// paper's 33k mesh); the geometry and refinement are in device-common.inc.
// gmsh 4.8.4, Debian 12, 2 cores:
//   gmsh -3 -format msh41 -o device-33k.msh meshes/device-33k.geo
//   -> 32906 nodes, 185737 tets, 10.3 s wall
sc = 0.733;
Include "device-common.inc";
