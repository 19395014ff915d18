// device-47k.geo -- bipolar transistor mesh of about 47k nodes (the seed
// paper's 47k mesh); the geometry and refinement are in device-common.inc.
// gmsh 4.8.4, Debian 12, 2 cores:
//   gmsh -3 -format msh41 -o device-47k.msh meshes/device-47k.geo
//   -> 47018 nodes, 269004 tets, 15.4 s wall
sc = 0.644;
Include "device-common.inc";
