package schemagen

func init() { domainSources = append(domainSources, domainsA) }

const domainsA = `
= hospital | a hospital: wards, physicians, patients, admissions, procedures and prescriptions
lookup ward/wards 10 | a hospital ward
  name name Cardiology;Neurology;Orthopedics;Pediatrics;Oncology;Internal Medicine;General Surgery;Psychiatry;Obstetrics;Dermatology;Geriatrics;Urology
  floor count 1 9
  bed_count count 8 60
  daily_rate money 900 4500 | daily bed rate
entity physician/physicians 45 phys
  @person 1950 1992
  specialty cat Cardiologist;Neurologist;Surgeon;Pediatrician;Oncologist;Internist;Psychiatrist
  ward_id ref ward assigned to
  hire_date? date 1995 2023
  on_call? flag
entity patient/patients 320 pt
  @person 1930 2022
  blood_type? cat O+;A+;B+;AB+;O-;A-;B-;AB-
  insurance_type code MC=Medicare;MD=Medicaid;PR=Private insurance;UN=Uninsured
  primary_physician_id? ref physician cared for by
event admission/admissions 520 adm
  patient_id ref patient made for
  physician_id ref physician supervised by
  ward_id ref ward located in
  admission_date date 2019 2024
  discharge_date? after admission_date 0 40
  admission_type? code E=Emergency;U=Urgent;EL=Elective
  total_charge money 400 95000
  readmitted? flag | readmission within 30 days
lookup drug/drugs 20
  name name Aspirin;Metoprolol;Atorvastatin;Lisinopril;Warfarin;Levetiracetam;Ibuprofen;Paracetamol;Morphine;Amoxicillin;Insulin;Prednisone;Omeprazole;Sertraline;Metformin;Ceftriaxone;Gabapentin;Salbutamol;Ondansetron;Heparin
  drug_class cat Analgesic;Antibiotic;Cardiovascular;Antidiabetic;Psychiatric;Anticoagulant
  unit_cost money 0.1 120 | cost per unit
link prescription/prescriptions 600 rx
  admission_id ref admission written during
  drug_id ref drug for
  dose_mg measure mg 1 2000 | dose
  days_supplied? count 1 30
event procedure_record/procedure_records 300 proc
  admission_id ref admission performed during
  procedure_name cat Appendectomy;MRI scan;CT scan;Colonoscopy;Angioplasty;Hip replacement;Biopsy;Dialysis;Endoscopy
  procedure_date date 2019 2024
  surgeon_id? ref physician performed by
  duration_minutes count 10 480
entity? lab_test/lab_tests 200
  patient_id ref patient ordered for
  test_name cat Hemoglobin;Glucose;Creatinine;Cholesterol;Sodium;Potassium;White cell count
  result_value measure units 0 300
  test_date date 2019 2024
  abnormal? flag
distractor? bed_maintenance/bed_maintenance_logs 60 | maintenance of beds, not used by the clinical records
  ward_id ref ward done in
  service_date date 2020 2024
  technician name gen person
  notes? text Replaced mattress;Adjusted rails;Checked motor;Cleaned frame;No issue found
distractor? parking_permit/parking_permits 40
  holder_name name gen person
  permit_zone code A=Staff garage;B=Visitor lot;C=Overflow lot
  expiry_date date 2024 2026

= school | a secondary school district: schools, teachers, students, classes, grades and attendance
entity school/schools 14
  name name gen title Lincoln;Washington;Roosevelt;Jefferson;Franklin;Kennedy;Hamilton;Madison;Riverside;Hillcrest;Oakwood;Lakeview / High School;Academy;Middle School;Prep
  @place
  school_type code PUB=Public;CHR=Charter;MAG=Magnet
  enrollment_capacity count 300 2500
  founded_year? count 1900 2015
entity teacher/teachers 80 tchr
  @person 1955 1998
  school_id ref school employed by
  subject_area cat Mathematics;English;Science;History;Art;Music;Physical Education;Languages
  annual_salary money 38000 98000
  tenured? flag
  years_experience? count 0 40
entity student/students 420 stu
  @person 2004 2012
  school_id ref school enrolled at
  grade_level count 6 12
  lunch_status? code F=Free lunch;R=Reduced-price lunch;P=Paid lunch
  homeroom_teacher_id? ref teacher supervised by
entity class_section/class_sections 90
  teacher_id ref teacher taught by
  course_title cat Algebra I;Geometry;Biology;Chemistry;World History;English Literature;Spanish I;Physics;Calculus;Art Studio
  period count 1 8
  room_number? count 100 350
  term code F=Fall;S=Spring;SU=Summer
link enrollment/enrollments 700 enr
  student_id ref student taken by
  class_section_id ref class_section held in
  final_grade? code A=90-100;B=80-89;C=70-79;D=60-69;F=below 60
  score? measure points 35 100
event attendance_record/attendance_records 600
  student_id ref student kept for
  absence_date date 2022 2024
  reason? cat Illness;Family;Appointment;Unexcused;Suspension
  excused flag
event? disciplinary_incident/disciplinary_incidents 80
  student_id ref student involving
  incident_date date 2022 2024
  severity code 1=Minor;2=Moderate;3=Major
  reporting_teacher_id? ref teacher reported by
entity? club/clubs 20
  name name Chess Club;Robotics;Debate;Drama;Choir;Model UN;Art Club;Coding Club;Yearbook;Soccer Club;Science Olympiad;Photography;Math Team;Band
  school_id ref school hosted by
  advisor_id? ref teacher advised by
  meeting_day cat Monday;Tuesday;Wednesday;Thursday;Friday
distractor? bus_route/bus_routes 25
  route_code name gen serial RT
  school_id ref school serving
  stops count 4 30
  driver_name? name gen person

= retail | a retail chain: stores in cities, customers, products, orders and order lines
lookup region/regions 6
  name name Northeast;Southeast;Midwest;Southwest;West;Pacific;Mountain;Central
  manager_name? name gen person
entity store/stores 30
  name name gen title Main Street;Downtown;Westgate;Eastside;Harbor;Mall;Airport;Uptown;Riverside;Northpark / Store;Outlet;Market;Superstore
  region_id ref region located in
  @place
  opened_date? date 1995 2022
  floor_area measure sqft 4000 90000
entity customer/customers 380 cust
  @person 1945 2005
  loyalty_tier? code B=Bronze;S=Silver;G=Gold;P=Platinum
  customer_segment cat Consumer;Corporate;Home Office;Small Business
  home_store_id? ref store usually shopping at
  signup_date date 2015 2024
lookup category/categories 14 cat
  name name Electronics;Home;Garden;Toys;Clothing;Grocery;Sports;Beauty;Books;Automotive;Office;Pet Supplies;Kitchen;Furniture
  parent_category_id? ref category grouped under
entity product/products 160 prod
  name name gen title Deluxe;Classic;Compact;Smart;Eco;Ultra;Premium;Basic;Pro;Mini / Blender;Lamp;Backpack;Headphones;Drill;Kettle;Chair;Speaker;Jacket;Tent;Monitor;Vacuum
  category_id ref category classified under
  supplier_id? ref supplier supplied by
  unit_price money 2 1500
  weight_kg? measure kg 0.1 40
  discontinued? flag
entity supplier/suppliers 25 supp
  name name gen company
  country cat USA;China;Germany;Mexico;Vietnam;India;Canada;Italy
  rating? count 1 5
event sales_order/sales_orders 560 ord
  customer_id ref customer placed by
  store_id ref store placed at
  order_date date 2021 2024
  ship_date? after order_date 0 14
  payment_method code CC=Credit card;DC=Debit card;CA=Cash;GC=Gift card
  order_total money 5 3000
link order_line/order_lines 900
  sales_order_id ref sales_order part of
  product_id ref product for
  quantity count 1 12
  discount_rate? measure percent 0 40
event? product_return/product_returns 90
  sales_order_id ref sales_order returned from
  return_date date 2021 2024
  reason cat Damaged;Wrong item;Not as described;Changed mind;Late delivery
  refund_amount money 5 1500
distractor? promo_banner/promo_banners 20
  headline text Summer Sale;Back to School;Holiday Deals;Clearance;Members Week;Flash Sale
  start_date date 2022 2024
  click_count count 0 90000

= airline | an airline: airports, aircraft, routes, flights, passengers, bookings and crew
entity airport/airports 40
  iata_code name gen serial X
  name name gen title Metro;International;Regional;County;Municipal;Lakefront;Valley;Harbor / Airport;Airfield;Field;Jetport
  @place
  runway_count count 1 6
  elevation_ft? measure ft 0 7000
lookup aircraft_type/aircraft_types 10
  name name A320;A321;A330;A350;B737;B747;B767;B777;B787;E175;CRJ900;ATR72
  manufacturer cat Airbus;Boeing;Embraer;Bombardier;ATR
  seat_capacity count 70 420
  range_km measure km 1500 15000
entity aircraft/aircraft 45
  tail_number name gen serial N
  aircraft_type_id ref aircraft_type of model
  delivery_date date 1998 2023
  in_service flag
entity route/routes 60
  origin_airport_id ref airport departing from
  destination_airport_id ref airport arriving at
  distance_km measure km 200 12000
  route_category? cat Domestic;Regional;International;Long haul
event flight/flights 420 flt
  flight_number name gen serial AX
  route_id ref route flying
  aircraft_id ref aircraft operated with
  departure_date date 2023 2024
  delay_minutes? count 0 300
  flight_status code S=Scheduled;D=Departed;C=Cancelled;L=Landed;X=Diverted
entity passenger/passengers 400 pax
  @person 1940 2020
  frequent_flyer_level? code 0=None;1=Silver;2=Gold;3=Platinum
  passport_country? cat USA;Canada;Mexico;UK;Germany;Japan;Brazil;India
link booking/bookings 800 bkg
  passenger_id ref passenger made for
  flight_id ref flight on
  fare_class code Y=Economy;W=Premium economy;J=Business;F=First
  fare_paid money 40 6000
  checked_bags? count 0 3
  booked_on? date 2022 2024
entity? crew_member/crew_members 90
  @person 1955 2000
  crew_role cat Captain;First officer;Flight attendant;Purser
  base_airport_id ref airport based at
link? crew_assignment/crew_assignments 400
  crew_member_id ref crew_member made for
  flight_id ref flight on
  duty_hours? measure hours 1 16
distractor? lounge/lounges 15
  airport_id ref airport located in
  lounge_name name gen title Sky;Cloud;Horizon;Jet;Aero / Lounge;Club;Suite
  seats count 20 300

= library | a public library system: branches, members, authors, books, copies, loans and holds
entity branch/branches 10
  name name Central;Northside;Eastgate;West End;Riverside;Hillside;Lakeshore;Oak Park;Southview;Maplewood;Harborview
  @place
  opening_year? count 1890 2018
  weekly_hours count 30 72
entity author/authors 120
  @person 1850 1995
  nationality? cat American;British;Irish;Nigerian;Indian;Canadian;Australian;French
  deceased? flag
lookup genre/genres 12
  name name Mystery;Romance;Science Fiction;Fantasy;Biography;History;Poetry;Thriller;Self-help;Children;Travel;Cooking;Horror
  fiction flag
entity book/books 260
  title name gen title The Silent;The Last;A Distant;The Hidden;Broken;Golden;The Winter;Midnight;The Lost;Crimson / River;Garden;Empire;Letter;Kingdom;Harbor;Promise;Mountain;Journey;Orchard
  author_id ref author written by
  genre_id ref genre classified as
  isbn? name gen serial 978
  publication_year count 1950 2024
  page_count? count 80 900
entity copy/copies 450 cpy
  book_id ref book a copy of
  branch_id ref branch held at
  acquisition_date? date 2000 2024
  condition_code code N=New;G=Good;W=Worn;D=Damaged
  replacement_cost? money 5 80
entity member/members 330 mbr
  @person 1940 2018
  home_branch_id ref branch registered at
  joined_date date 2005 2024
  membership_type code A=Adult;J=Junior;S=Senior;ST=Student
event loan/loans 700
  copy_id ref copy borrowed as
  member_id ref member borrowed by
  loan_date date 2022 2024
  due_date after loan_date 14 28
  return_date? after loan_date 1 60
  late_fee? money 0.25 30
event? hold_request/hold_requests 150
  book_id ref book requested for
  member_id ref member requested by
  request_date date 2023 2024
  fulfilled flag
distractor? room_booking/room_bookings 60
  branch_id ref branch in
  booking_date date 2023 2024
  attendees count 1 40
  organizer? name gen person

= hr | a company's human resources: departments, job titles, employees and their managers, salaries, reviews and training
entity department/departments 12 dept
  name name Finance;Engineering;Sales;Marketing;Legal;Operations;Customer Support;Research;Procurement;Facilities;IT;Human Resources
  cost_center name gen serial CC
  budget money 200000 9000000
  parent_department_id? ref department part of
lookup job_title/job_titles 16
  title name Analyst;Senior Analyst;Engineer;Senior Engineer;Manager;Director;Coordinator;Specialist;Associate;Consultant;Technician;Administrator;Architect;Recruiter;Accountant;Designer
  pay_grade code G1=Entry;G2=Intermediate;G3=Senior;G4=Lead;G5=Executive
  min_salary money 30000 90000
entity office/offices 8
  name name Headquarters;North Campus;Downtown;Tech Park;Harbor Office;Westside;Innovation Hub;Remote Hub;South Tower
  @place
  floors? count 1 40
entity employee/employees 360 emp
  @person 1955 2002
  department_id ref department working in
  job_title_id ref job_title holding
  office_id? ref office located in
  manager_id? ref employee managed by
  hire_date date 2000 2024
  termination_date? after hire_date 100 4000
  employment_type code FT=Full-time;PT=Part-time;CT=Contractor;IN=Intern
  remote? flag
event salary_history/salary_history_entries 600 sal_hist
  employee_id ref employee paid to
  effective_date date 2015 2024
  annual_salary money 28000 260000
  change_reason? cat Hire;Promotion;Merit increase;Market adjustment;Demotion
event performance_review/performance_reviews 450 perf_rvw
  employee_id ref employee about
  reviewer_id ref employee written by
  review_date date 2019 2024
  rating code 1=Unsatisfactory;2=Needs improvement;3=Meets expectations;4=Exceeds expectations;5=Outstanding
  promotion_recommended? flag
entity? training_course/training_courses 25
  course_name name Leadership Basics;Excel Advanced;Data Privacy;Negotiation;Public Speaking;Project Management;Safety Training;Python Intro;Time Management;Diversity and Inclusion;Budgeting;Conflict Resolution;Agile Practices;Customer Empathy;Cyber Awareness
  provider? name gen company
  duration_hours measure hours 2 40
link? training_enrollment/training_enrollments 400
  employee_id ref employee attended by
  training_course_id ref training_course of
  completion_date? date 2019 2024
  passed? flag
distractor? badge_access/badge_access_events 100
  employee_id ref employee by
  access_date date 2024 2024
  door_code text D-101;D-102;G-1;G-2;LAB-3;SRV-1
`
